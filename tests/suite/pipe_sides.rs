//! The pipes' sides (issue 53): an absorbing side that lets waves out and keeps a lake at rest
//! (Flather's radiation condition), wave makers, and river sides (discharge, stage, free).

use crate::common::{assert_backends_agree, max_diff, mean_period, river_channel, scene, scene_in, simulation};
use shoal::{Backend, Simulation};
use std::path::Path;

/// A frictionless channel 10 m long and 0.1 m deep (c = 0.99 m/s), 400 × 4 cells, periodic
/// across (an endless width: plane waves, no walls along it), its ends `ends`; `extra` appended.
fn channel(ends: &str, steps: u64, extra: &str) -> String {
    format!(
        "[grid]\nnx = 400\nny = 4\ndx = 0.025\n[time]\ndt = 0.01\nsteps = {steps}\n[physics]\nmodel = \"pipes\"\n\
         [pipes]\nfriction = 1.0\n[terrain]\nflat = -0.1\n[water]\nlevel = 0.0\n\
         [boundary]\n{ends}\nsouth = \"periodic\"\nnorth = \"periodic\"\n{extra}"
    )
}

/// The channel at rest behind `ends` keeps every unit over 400 steps, on the CPU and the GPU.
fn keeps_every_unit(ends: &str) {
    let lake = scene(&channel(ends, 400, ""));
    for backend in [Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&lake, backend);
        let (start, _) = sim.water_units().unwrap();
        sim.step(400).unwrap();
        assert_eq!(
            sim.water_units().unwrap(),
            (start, start as i64),
            "{backend:?}: a lake at rest changed behind {ends}"
        );
    }
}

/// Largest |surface − 0| over the channel.
fn highest_swing(sim: &mut Simulation) -> f64 {
    sim.surface().unwrap().iter().fold(0.0f64, |m, h| m.max(h.abs()))
}

/// The contract's `absorb` ("non-reflecting; waves leave the domain"). The pipes' absorbing side
/// was a free outfall, which drained a lake at rest (30 % of a 0.1 m channel in 7 s); it is now
/// Flather's radiation condition, u = sqrt(g/d)·(η − still). A lake at rest keeps every unit; a
/// bump's two 1 mm pulses leave through both ends and what is left after 8 s (the reflection)
/// is under 5 % of them, as the height field's absorbing side is held to (measured 1.7 %; walls
/// keep 100 %). The GPU follows the twin within 1e-5 m (a driver's sqrt may round otherwise).
#[test]
fn an_absorbing_side_keeps_a_lake_at_rest_and_lets_a_pulse_out() {
    let absorb = "west = \"absorb\"\neast = \"absorb\"";
    keeps_every_unit(absorb);
    let bump = "[[water.bump]]\nx = 5.0\ny = 0.05\nradius = 0.2\nheight = 0.002\n";
    let left = |ends: &str, backend: Backend| {
        let mut sim = simulation(&scene(&channel(ends, 800, bump)), backend);
        sim.step(800).unwrap();
        (highest_swing(&mut sim) / 0.001, sim.surface().unwrap())
    };
    let (absorbed, cpu) = left(absorb, Backend::Cpu);
    let (reflected, _) = left("west = \"reflect\"\neast = \"reflect\"", Backend::Cpu);
    eprintln!(
        "left after the pulses: absorb {:.2} %, reflect {:.1} %",
        absorbed * 100.0,
        reflected * 100.0
    );
    assert!(absorbed < 0.05, "absorbing ends reflect {:.1} %", absorbed * 100.0);
    assert!(
        reflected > 0.5,
        "walls let the pulses out: {:.1} % left",
        reflected * 100.0
    );
    let (_, gpu) = left(absorb, Backend::Gpu);
    let diff = max_diff(&cpu, &gpu);
    assert!(diff < 1e-5, "GPU and twin differ by {diff} m");
}

/// Wave makers on the pipes (issue 53's test): a sine of 2 mm and 1 s at the west side raises
/// waves of its amplitude within 2 % and its period within 2 % 5 m down the channel once the
/// ramp and the front have passed (measured −1.6 %: the scheme's own dispersion at 40 cells a
/// wave), its water booked to the unit. The fast path is the twin's bits; the GPU's waves
/// are within 2 % too.
#[test]
fn a_wave_maker_on_the_pipes_makes_waves_of_its_amplitude_and_period() {
    let probe = "[[output.probe]]\nname = \"gauge\"\nx = 5.0\ny = 0.05\n\
                 [boundary.maker]\nkind = \"sine\"\namplitude = 0.002\nperiod = 1.0\n";
    let flume = scene(&channel("west = \"maker\"\neast = \"absorb\"", 1500, probe));
    let mut surfaces = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&flume, backend);
        let rows = sim.step(1500).unwrap();
        let late: Vec<f64> = rows.iter().skip(1000).map(|r| r[0]).collect();
        let (lo, hi) = late
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        let (amplitude, period) = ((hi - lo) / 2.0, mean_period(&late, mean, 0.01));
        eprintln!("{backend:?}: amplitude {amplitude:.6} m, period {period:.3} s");
        assert!(
            ((amplitude - 0.002) / 0.002).abs() < 0.02,
            "{backend:?}: amplitude {amplitude} m, the maker's is 0.002"
        );
        assert!((period - 1.0).abs() < 0.02, "{backend:?}: period {period} s");
        let (water, target) = sim.water_units().unwrap();
        assert_eq!(water as i64, target, "{backend:?}: the water left its books");
        surfaces.push(sim.surface().unwrap());
    }
    assert_eq!(surfaces[0], surfaces[1], "the fast path left the twin's bits");
}

/// River sides on the pipes, as on the height field: a `"discharge"` side is a wall whose edge
/// columns take q·dt/dx a step in whole units, a `"stage"` side a wall whose edge columns are held
/// at its level, a `"free"` side the absorbing one. A 4 × 1 m channel 0.3 m deep, walls along it:
/// a discharge of 0.02 m²/s at its west end gives q·W·t in 10 s within the units' rounding (half
/// a unit per entry: measured −1.8e-6 of it), booked to the unit; a stage 5 cm above the water at
/// its east end sends a step west that passes half its height at the middle, 1.95 m on, between
/// a bore's time (sqrt(g·d1·(d0 + d1)/(2·d0)): 1.011 s) and the linear sqrt(g·d0)'s 1.137 s, 2 %
/// either way (measured 1.06 s; the height field, linear, 1.10 s). The fast path is the twin's bits, the
/// GPU within 1e-5 m of it.
#[test]
fn river_sides_on_the_pipes_let_in_their_discharge_and_hold_their_stage() {
    let channel = |sides: &str| river_channel("model = \"pipes\"\n[pipes]\nfriction = 1.0", sides);
    let start = 4.0 * 1.0 * 0.3;
    for (sides, case) in [("west = \"discharge\"", "discharge"), ("east = \"stage\"", "stage")] {
        let scene = scene_in(Path::new("."), &channel(sides));
        let mut surfaces = Vec::new();
        for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
            let mut sim = simulation(&scene, backend);
            let rows = sim.step(1000).unwrap();
            let (water, target) = sim.water_units().unwrap();
            assert_eq!(water as i64, target, "{case} {backend:?}: the water left its books");
            let volume = sim.target_volume();
            if case == "discharge" {
                // Each of the 10 edge columns' entries rounds to whole units, 1000 steps.
                let want = start + 0.02 * 1.0 * 10.0;
                let rounding = 0.5 * 10.0 * 1000.0 * sim.unit_volume().unwrap();
                eprintln!("discharge {backend:?}: {volume:.7} m³, q·W·t {want}, rounding {rounding:.1e}");
                assert!(
                    (volume - want).abs() <= rounding,
                    "{backend:?}: the water {volume} m³, q·W·t {want}"
                );
            } else {
                let arrival = rows.iter().position(|r| r[0] > 0.025).expect("the step arrives") as f64 * 0.01 + 0.01;
                let (g, d0, d1) = (9.81f64, 0.3, 0.35);
                let linear = 1.95 / (g * d0).sqrt();
                let bore = 1.95 / (g * d1 * (d0 + d1) / (2.0 * d0)).sqrt();
                eprintln!(
                    "the stage's step passes the middle at {arrival:.2} s (a bore: {bore:.3} s, sqrt(g·d): {linear:.3} s)"
                );
                assert!(
                    arrival > 0.98 * bore && arrival < 1.02 * linear,
                    "{backend:?}: it arrives at {arrival} s, outside [{bore}, {linear}]"
                );
                assert!(
                    volume > start + 0.03,
                    "{backend:?}: the stage let in only {} m³",
                    volume - start
                );
            }
            surfaces.push(sim.surface().unwrap());
        }
        assert_backends_agree(&surfaces, 1e-5, case);
    }
    let bump = "[[water.bump]]\nx = 2.0\ny = 0.5\nradius = 0.3\nheight = 0.02\n";
    let runs: Vec<Vec<f64>> = ["east = \"free\"", "east = \"absorb\""]
        .iter()
        .map(|side| {
            let mut sim = simulation(
                &scene_in(Path::new("."), &format!("{}{bump}", channel(side))),
                Backend::Cpu,
            );
            sim.step(300).unwrap();
            sim.surface().unwrap()
        })
        .collect();
    assert_eq!(runs[0], runs[1], "a free side is not the absorbing side");
}

/// Walls (issue 53's pipes, noticed while building the makers): a column against a wall had no
/// diagonal pipes through it and conducted 5/6 of an open one along the wall, so a pulse ran 4 %
/// slow down a channel 4 columns wide (5.25 s over 5 m against sqrt(g·d)'s 5.05 s). The diagonal
/// is now mirrored in the wall (it joins the two columns along it): the channel's walls give the
/// bits of an endless width (periodic across: the bump is symmetric across the channel), and the
/// peak passes within 1 % of sqrt(g·d)'s time (measured 5.02 s: −0.6 %, the gauge's step).
/// Volume kept to the unit.
#[test]
fn walls_do_not_slow_the_pipes_waves_along_them() {
    let bump = "[[water.bump]]\nx = 2.0\ny = 0.05\nradius = 0.2\nheight = 0.002\n\
                [[output.probe]]\nname = \"gauge\"\nx = 7.0\ny = 0.05\n";
    let walled = channel("west = \"absorb\"\neast = \"absorb\"", 600, bump)
        .replace("south = \"periodic\"\nnorth = \"periodic\"\n", "");
    let endless = channel("west = \"absorb\"\neast = \"absorb\"", 600, bump);
    let crest = |text: &str, backend: Backend| {
        let mut sim = simulation(&scene(text), backend);
        let (start, _) = sim.water_units().unwrap();
        let rows = sim.step(600).unwrap();
        let (water, target) = sim.water_units().unwrap();
        assert_eq!(water as i64, target, "{backend:?}: the water left its books");
        assert!(water <= start, "{backend:?}: the water grew");
        let at = (0..rows.len())
            .max_by(|&a, &b| rows[a][0].total_cmp(&rows[b][0]))
            .unwrap();
        ((at + 1) as f64 * 0.01, sim.surface().unwrap())
    };
    let (t_walled, walls) = crest(&walled, Backend::Cpu);
    let (t_endless, open) = crest(&endless, Backend::Cpu);
    let want = 5.0 / (9.81f64 * 0.1).sqrt();
    eprintln!("the crest passes at {t_walled:.2} s between walls, {t_endless:.2} s without (sqrt(g·d): {want:.3} s)");
    assert_eq!(walls, open, "walls along the channel change its plane waves");
    assert!(
        (t_walled / want - 1.0).abs() < 0.01,
        "the crest passes at {t_walled} s, not {want}"
    );
    let (_, gpu) = crest(&walled, Backend::Gpu);
    let diff = max_diff(&gpu, &walls);
    assert!(diff < 1e-5, "GPU and twin differ by {diff} m");
}

/// A bump's two 1 mm pulses in the channel behind `ends` on `model`: the channel's mean level
/// (m) and its edge columns' largest |level| every 100 steps to step 800, and the last surface.
fn ghost_run(model: &str, ends: &str, backend: Backend) -> (Vec<f64>, f64, Vec<f64>) {
    let bump = "[[water.bump]]\nx = 5.0\ny = 0.05\nradius = 0.2\nheight = 0.002\n";
    let text = channel(ends, 800, bump).replace("model = \"pipes\"", &format!("model = \"{model}\""));
    let text = if model == "pipes" {
        text
    } else {
        text.replace("[pipes]\nfriction = 1.0\n", "")
    };
    let mut sim = simulation(&scene(&text), backend);
    let (mut means, mut edge) = (Vec::new(), 0.0f64);
    for _ in 0..8 {
        sim.step(100).unwrap();
        let s = sim.surface().unwrap();
        means.push(s.iter().sum::<f64>() / s.len() as f64);
        edge = s
            .chunks(400)
            .fold(edge, |m, row| m.max(row[0].abs()).max(row[399].abs()));
    }
    (means, edge, sim.surface().unwrap())
}

/// Ghost sides on the pipes (Wilson et al.'s, issue 53), as the height field has them. A lake
/// at rest behind them keeps every unit. A bump's two 1 mm pulses (its water a mean rise of
/// 0.1 mm over the channel): behind ghost-mean ends, whose ghost stands at the sea's mean
/// surface, the sea keeps its mean level above the still one (0.87–2.19 times the bump's rise
/// every 100 steps; the height field's 1.10–2.35), where open ends, a ghost at the still level,
/// return the pulses inverted and the mean to −1.0 times it; ghost-slope ends extrapolate the
/// edge's slope, so the edge passes on what reaches it and holds its level (within 20 µm, 2 % of
/// a pulse, on the pipes; 1e-12 m on the height field, which mirrors the face's flux), and the pulses come back inverted
/// as from an open side: the seed's condition, not an absorbing one (`absorb` is). The fast
/// path is the twin's bits; the GPU's within 1e-5 m.
#[test]
fn ghost_sides_on_the_pipes_keep_a_lake_at_rest_and_stand_as_the_height_fields() {
    let mean = "west = \"ghost-mean\"\neast = \"ghost-mean\"";
    let slope = "west = \"ghost-slope\"\neast = \"ghost-slope\"";
    keeps_every_unit(mean);
    keeps_every_unit(slope);
    let rise = 1.0e-4;
    let in_rises = |v: &[f64]| {
        v.iter()
            .map(|m| format!("{:.2}", m / rise))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (pipes_mean, _, _) = ghost_run("pipes", mean, Backend::Reference);
    let (field_mean, _, _) = ghost_run("height-field", mean, Backend::Cpu);
    let (open_mean, _, _) = ghost_run("pipes", "west = \"open\"\neast = \"open\"", Backend::Reference);
    eprintln!(
        "mean level in bump rises, ghost-mean: pipes {} | height field {}",
        in_rises(&pipes_mean),
        in_rises(&field_mean)
    );
    eprintln!("open ends: {}", in_rises(&open_mean));
    assert!(
        pipes_mean.iter().all(|m| (0.5 * rise..2.5 * rise).contains(m)),
        "behind ghost-mean ends the mean left 0.5–2.5 rises: {}",
        in_rises(&pipes_mean)
    );
    assert!(
        open_mean[7] < -0.8 * rise,
        "open ends kept the mean at {}",
        open_mean[7] / rise
    );
    let (slope_mean, slope_edge, _) = ghost_run("pipes", slope, Backend::Reference);
    let (_, field_edge, _) = ghost_run("height-field", slope, Backend::Cpu);
    eprintln!(
        "ghost-slope: mean {} | edge within {slope_edge:.2e} m (height field {field_edge:.2e} m)",
        in_rises(&slope_mean)
    );
    assert!(
        slope_edge < 3e-5,
        "the ghost-slope edge moved {slope_edge} m (3 % of a pulse)"
    );
    assert!(
        slope_mean[7] < -0.8 * rise,
        "the pulses did not come back inverted: {}",
        slope_mean[7] / rise
    );
    for ends in [mean, slope] {
        let runs: Vec<Vec<f64>> = [Backend::Reference, Backend::Cpu, Backend::Gpu]
            .into_iter()
            .map(|b| ghost_run("pipes", ends, b).2)
            .collect();
        assert_backends_agree(&runs, 1e-5, ends);
    }
}

/// Ghost sides on a bank (the edge's floor above the still level) let water out and none in. A 2
/// m sea at the still level west of a 1:10 beach that runs up past the east side, and up the
/// beach a pond behind a wall, 1.2 m above the sea: a lake at rest, which must keep every unit
/// and every level. Without the bank rule the east side's ghost-slope ghost, 2·h_edge − h_inner on
/// a dry slope, stands above the edge and pours water in; a ghost-mean ghost standing at the sea's
/// mean anywhere but the sea would flood a bank below it. Both ways round, every backend.
#[test]
fn ghost_sides_on_the_pipes_leave_a_sea_and_a_pond_on_a_bank_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let lake = crate::common::sea_and_pond_on_a_bank(dir.path());
    for (west, east) in [("ghost-mean", "ghost-slope"), ("ghost-slope", "ghost-mean")] {
        let scene = scene_in(
            dir.path(),
            &format!(
                "{lake}[time]\ndt = 0.05\n[physics]\nmodel = \"pipes\"\n\
                 [boundary]\nwest = \"{west}\"\neast = \"{east}\"\n"
            ),
        );
        for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
            let mut sim = simulation(&scene, backend);
            let (units, _) = sim.water_units().unwrap();
            let start = sim.surface().unwrap();
            let ponded = start.iter().zip(sim.ground()).filter(|(h, b)| **h > **b + 0.04).count();
            assert_eq!(
                ponded,
                8 * 20 + 8 * 5,
                "{west}/{east} {backend:?}: the sea and the pond"
            );
            sim.step(400).unwrap();
            assert_eq!(
                sim.water_units().unwrap(),
                (units, units as i64),
                "{west}/{east} {backend:?}"
            );
            assert_eq!(
                sim.surface().unwrap(),
                start,
                "{west}/{east} {backend:?}: the lake at rest moved"
            );
        }
    }
}
