//! Thacker's (1981) parabolic bowl: how much of a sloshing wave's amplitude each solver keeps per
//! period when its shoreline moves (issue 16).
//!
//! In the bowl b = h0·(r²/a² − 1) the planar mode is exact for the shallow-water equations: the
//! water translates as a rigid paraboloid, d = h0·(1 − ((x − A·cos ωt)² + y²)/a²), released at rest
//! at t = 0, with ω = √(2·g·h0)/a. Its centre of mass moves as A·cos ωt, so the ratio of successive
//! maxima of the centre of mass is the amplitude kept per period (1 for the equations; Kass &
//! Miller's linearisation drops a term of order A², which neither grows nor decays the mode).
//!
//! Runs the 1-D bowl (a strip, reflecting sides) and the 2-D bowl, for the explicit and ADI
//! solvers on the CPU reference. Without wet and dry the explicit scheme keeps a mode's amplitude
//! exactly; ADI keeps r^N per period, r = 1/√(1 + a) per step with a ≈ (ω·dt)² and N = 2π/θ steps,
//! tan θ = √a (start.rs): printed beside it as its own time damping.
//!
//! `cargo run --release --example thacker -- [cells per radius] [excursion/radius] [periods]`
//! (defaults 200, 0.01, 3).

mod bowl;

use bowl::{adi_own, kept, Bowl};
use shoal::Backend;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let cells = arg(0, 200.0) as usize;
    let excursion = arg(1, 0.01);
    let periods = arg(2, 3.0) as usize;
    println!("Thacker's bowl, {cells} cells per radius, excursion {excursion}·a, Courant 0.5 at the centre");
    let adi_own = adi_own(cells);
    println!("ADI's own damping of this mode without wet and dry: {adi_own:.4} per period");
    println!("{:<8} {:<8} amplitude kept per period", "bowl", "solver");
    for bowl in [Bowl::Strip, Bowl::Round] {
        for solver in ["explicit", "adi"] {
            match kept(bowl, solver, Backend::Reference, cells, excursion, periods) {
                Ok(kept) => {
                    let kept: Vec<String> = kept.iter().map(|k| format!("{k:.4}")).collect();
                    println!("{:<8} {:<8} {}", format!("{bowl:?}"), solver, kept.join(" "));
                }
                Err(e) => println!("{bowl:?} {solver}: error: {e}"),
            }
        }
    }
}
