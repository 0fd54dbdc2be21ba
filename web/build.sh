#!/usr/bin/env bash
# Builds the web demo: the wasm (release) and its JavaScript glue into web/pkg/. Needs the
# wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown) and wasm-bindgen-cli
# at the version of the wasm-bindgen crate in Cargo.lock (cargo install wasm-bindgen-cli
# --version <it>). `web/build.sh serve [PORT]` then serves web/ at http://localhost:PORT (8000).
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --target wasm32-unknown-unknown
wasm-bindgen --target web --no-typescript --out-dir pkg ../target/wasm32-unknown-unknown/release/shoal_web.wasm
if [ "${1:-}" = serve ]; then
    port="${2:-8000}"
    echo "serving the demo at http://localhost:$port (Ctrl-C stops)"
    exec python3 -m http.server -d . "$port"
fi
