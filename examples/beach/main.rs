//! A wave running up a 1:20 beach 50 times (issue 16): the energy each run keeps, against the
//! same beach walled off before its shoreline.
//!
//! `cargo run --release --example beach -- [dx] [amplitude] [solver] [correction] [backend]`
//! (defaults 0.025, 0.001, explicit, global, cpu; `reference` runs the single-threaded twin).

mod beach;

use beach::{beach, beach_energy};
use shoal::Backend;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let dx: f64 = arg(0, "0.025").parse()?;
    let amp: f64 = arg(1, "0.001").parse()?;
    let (solver, correction) = (arg(2, "explicit"), arg(3, "global"));
    let backend = match arg(4, "cpu").as_str() {
        "cpu" => Backend::Cpu,
        "reference" => Backend::Reference,
        other => return Err(format!("backend {other:?}: cpu or reference").into()),
    };
    println!("a {amp} m hump on a 1:20 beach, dx {dx} m, {solver}, correction {correction}");
    for walled in [true, false] {
        let sim = beach(&solver, dx, amp, walled, &correction, backend)?;
        let kept = beach_energy(sim, dx)?;
        println!(
            "{:<7} energy kept over run-ups 46–50 against 1–5: {kept:.4}",
            if walled { "walled" } else { "beach" }
        );
    }
    Ok(())
}
