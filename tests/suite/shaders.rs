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
    // Every `wgsl/` folder under src/: the engine's and each model's room.
    fn wgsl_files(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                wgsl_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "wgsl") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    wgsl_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 30, "found only {} WGSL files", files.len());
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
