//! The web page's preset scenes within WebGPU's binding limits: WebGPU lets a pipeline bind 8
//! storage buffers per stage by default and most adapters 10 (Chrome's tiers; SwiftShader in
//! headless Chromium), where native adapters allow many more. wgpu checks every pipeline layout
//! against the device's limits, so a device opened here with the adapter's limits but 10 storage
//! buffers per stage refuses, as a browser would, any pass that binds more.

use shoal::{Scene, Water};

/// The presets the page offers: the scene files web/src/lib.rs includes.
fn web_presets() -> Vec<String> {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/web/src/lib.rs")).unwrap();
    let presets: Vec<String> = page
        .split("include_str!(\"../../scenes/")
        .skip(1)
        .map(|rest| rest.split(".toml").next().unwrap().to_string())
        .collect();
    assert!(presets.len() >= 6, "the page offers {presets:?}");
    presets
}

fn device_with_storage_buffers(n: u32) -> (wgpu::Device, wgpu::Queue) {
    crate::embed::own_device_with(|limits| limits.max_storage_buffers_per_shader_stage = n)
}

#[test]
fn every_web_preset_builds_and_steps_with_ten_storage_buffers_per_stage() {
    let (device, queue) = device_with_storage_buffers(10);
    for name in web_presets() {
        let path = format!("{}/scenes/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let scene = Scene::from_file(std::path::Path::new(&path)).unwrap();
        let mut water =
            Water::new(&device, &queue, &scene, Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 4);
        queue.submit([encoder.finish()]);
        water.check().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// A pass past the limit is refused with wgpu's error, not a crash: the check above can fail.
#[test]
fn a_device_with_eight_storage_buffers_refuses_the_adi_solver_cleanly() {
    let (device, queue) = device_with_storage_buffers(8);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/beach.toml");
    let scene = Scene::from_file(std::path::Path::new(path)).unwrap();
    let err = Water::new(&device, &queue, &scene, Default::default())
        .err()
        .expect("refused");
    assert!(
        err.to_string()
            .contains("the ADI solver binds 10 storage buffers, the adapter allows 8"),
        "{err}"
    );
}
