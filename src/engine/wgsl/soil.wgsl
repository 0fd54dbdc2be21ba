// [infiltration]'s laws (src/engine/infiltration.rs derives them), as the height field's volume
// pass (volume.wgsl's `apply`) and the shallow-water model's feed (sw_feed.wgsl's `infiltrate`)
// take them: a cell's capacity this step from its law's three parameters and its soil's state
// (the depth taken so far F and its rounding, then Horton's time in steps or the curve number's
// rain P and its rounding), and the state after the cell gave what it could. Shared by two
// rooms, it takes their uniforms' `one` for its TwoSums (exact.wgsl). Twins:
// `engine::infiltration::{capacity, took}`.
#import exact

// Each law's code (`Params::infiltration`, `SwParams::infiltration`; 0: none).
const SOIL_CONSTANT: u32 = 1u;
const SOIL_HORTON: u32 = 2u;
const SOIL_GREEN_AMPT: u32 = 3u;
const SOIL_CURVE_NUMBER: u32 = 4u;

// What a cell's ground can take this step, and its soil's state with the step's rain counted.
struct SoilStep {
    cap: f32,
    st: vec4<f32>,
}

// The curve number's runoff from rain `rain` past the initial abstraction `ia`, retention `s`.
fn runoff(rain: f32, s: f32, ia: f32) -> f32 {
    let over = rain - ia;
    if over <= 0.0 {
        return 0.0;
    }
    return over * over / (over + s);
}

// Law `law`'s capacity (m) for a cell with parameters `par` and state `st`, which this step's
// rainfall gave `rain` m (the curve number counts it); `one` is the uniform's 1.0.
fn soil_capacity(law: u32, par: vec3<f32>, st_in: vec4<f32>, rain: f32, one: f32) -> SoilStep {
    var st = st_in;
    let a = par.x;
    let b = par.y;
    var cap = 0.0;
    if law == SOIL_CONSTANT {
        cap = a;
    } else if law == SOIL_HORTON {
        cap = b + (a - b) * exp(-par.z * st.z);
    } else if law == SOIL_GREEN_AMPT {
        let least = sqrt(2.0 * a * b);
        cap = select(a, a * (1.0 + b / max(st.x, least)), b > 0.0);
    } else if law == SOIL_CURVE_NUMBER {
        let x = two_sum_through(st.z, rain + st.w, one);
        st.z = x.x;
        st.w = x.y;
        let total = st.z + st.w;
        cap = max(total - runoff(total, a, b) - (st.x + st.y), 0.0);
    }
    return SoilStep(cap, st);
}

// The state after the cell gave `take` (> 0) of its capacity `cap`: F counts it (TwoSum, so a
// step's 1e-8 m is not rounded away on a total of centimetres), and Horton's time advances by
// the share of its capacity the cell took (a cell short of water ages less).
fn soil_took(law: u32, st_in: vec4<f32>, take: f32, cap: f32, one: f32) -> vec4<f32> {
    var st = st_in;
    let f = two_sum_through(st.x, take + st.y, one);
    st.x = f.x;
    st.y = f.y;
    if law == SOIL_HORTON {
        st.z = st.z + take / cap;
    }
    return st;
}
