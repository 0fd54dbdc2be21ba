//! Every WGSL shader, exactly as the pipelines receive it (build.rs resolved its imports and
//! validated it already; this checks the strings the crate ships), and no WGSL file is left out.

#[test]
fn every_shader_validates_with_naga() {
    for (name, source) in shoal::low_level::gpu::SHADERS {
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
fn every_wgsl_file_is_an_entry_shader_or_imported_by_one() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wgsl");
    let files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    for (name, text) in &files {
        if text.contains("@compute") {
            assert!(
                shoal::low_level::gpu::SHADERS.iter().any(|(n, _)| n == name),
                "wgsl/{name} has an entry point but is not in gpu::shaders::ALL"
            );
        } else {
            let import = format!("#import {}", name.trim_end_matches(".wgsl"));
            assert!(
                files.iter().any(|(_, t)| t.lines().any(|l| l.trim() == import)),
                "wgsl/{name} has no entry point and nothing imports it"
            );
        }
    }
}
