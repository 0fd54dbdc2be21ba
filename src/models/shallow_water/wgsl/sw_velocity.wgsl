// The shallow-water model's depth-averaged velocity, one definition for every pass that reads it
// (shallow_water.wgsl, sw_maps.wgsl). Twin: `state::velocity`: q/h on water at least `film` deep,
// 2·q·h/(h² + film²) under it (Kurganov & Petrova's desingularisation), which goes to 0 with h.
fn velocity(q: f32, h: f32, film: f32) -> f32 {
    if h >= film {
        return q / h;
    }
    return 2.0 * q * h / (h * h + film * film);
}
