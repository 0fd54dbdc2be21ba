//! Every WGSL shader, exactly as the pipelines receive it, parses and validates with naga, so a
//! shader error fails `cargo test` with naga's message instead of at pipeline creation.

#[test]
fn every_shader_validates_with_naga() {
    for (name, source) in shoal::gpu::shaders::ALL {
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
    }
}

#[test]
fn every_wgsl_file_is_built() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wgsl");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !shoal::gpu::shaders::PIECES.contains(&name.as_str()) {
            assert!(
                shoal::gpu::shaders::ALL.iter().any(|(n, _)| *n == name),
                "wgsl/{name} is not in gpu::shaders::ALL, so nothing validates or uses it"
            );
        }
    }
}
