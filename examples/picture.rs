//! Renders one snapshot of a `shoal run` output folder as a PNG, as `shoal run --png` draws its
//! frames: water tinted by depth and shaded by its surface normal, dry ground in earth tones.
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

    let palette = shoal::io::picture::Palette::new(&h, &ground);
    let img = shoal::io::picture::render(&h, &ground, &[], nx, ny, scene.grid.dx, &palette);
    shoal::io::picture::write_png(&PathBuf::from(png), &img)?;
    println!("wrote {png}: step {step} of {}, {nx} × {ny} pixels", out.display());
    Ok(())
}
