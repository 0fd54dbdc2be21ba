//! Renders one snapshot of a `shoal run` output folder as a PNG: water tinted by depth and shaded by
//! its surface normal, dry ground in earth tones, north up.
//!
//! `cargo run --release --example picture -- OUT_DIR STEP PICTURE.png`

use shoal::scene::InitialFields;
use shoal::Scene;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, step, png] = &args[..] else {
        return Err("usage: picture OUT_DIR STEP PICTURE.png".into());
    };
    let out = PathBuf::from(out);
    let scene = Scene::from_file(&out.join("scene.toml"))?;
    // h is stored as f32, and a dry cell's h is its ground rounded to f32: compare in f32 too.
    let ground: Vec<f64> = InitialFields::build(&scene)?
        .ground
        .iter()
        .map(|&b| b as f32 as f64)
        .collect();
    let step: u64 = step.parse()?;
    let field = shoal::io::npy::read_f64_2d(&out.join(format!("h_{step:06}.npy")))?;
    let [ny, nx] = field.shape;
    let h = field.data;
    let dx = scene.grid.dx;

    let (b_min, b_max) = ground
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &g| (a.min(g), b.max(g)));
    let mut img = image::RgbImage::new(nx as u32, ny as u32);
    for j in 0..ny {
        for i in 0..nx {
            let at = |f: &[f64], i: usize, j: usize| f[j.min(ny - 1) * nx + i.min(nx - 1)];
            let c = j * nx + i;
            let depth = h[c] - ground[c];
            let field: &[f64] = if depth > 0.0 { &h } else { &ground };
            // Lambert shading from the surface normal, light from the north-west; waves are
            // exaggerated so millimetre ripples show.
            let relief = if depth > 0.0 { 40.0 } else { 4.0 };
            let gx = (at(field, i + 1, j) - at(field, i.saturating_sub(1), j)) / (2.0 * dx) * relief;
            let gy = (at(field, i, j + 1) - at(field, i, j.saturating_sub(1))) / (2.0 * dx) * relief;
            let light = ((gx - gy) * -0.5 + 1.0) / (1.0 + gx * gx + gy * gy).sqrt();
            let shade = (0.35 + 0.65 * light).clamp(0.0, 1.4);
            let rgb = if depth > 0.0 {
                let t = (depth / 0.5).clamp(0.0, 1.0);
                [
                    40.0 + 60.0 * (1.0 - t),
                    110.0 + 90.0 * (1.0 - t),
                    170.0 + 60.0 * (1.0 - t),
                ]
            } else {
                let t = ((ground[c] - b_min) / (b_max - b_min).max(1e-9)).clamp(0.0, 1.0);
                [150.0 + 70.0 * t, 125.0 + 60.0 * t, 80.0 + 50.0 * t]
            };
            let px = rgb.map(|v| (v * shade).clamp(0.0, 255.0) as u8);
            img.put_pixel(i as u32, (ny - 1 - j) as u32, image::Rgb(px));
        }
    }
    image::imageops::resize(
        &img,
        2 * nx as u32,
        2 * ny as u32,
        image::imageops::FilterType::CatmullRom,
    )
    .save(png)?;
    Ok(())
}
