#!/usr/bin/env bash
# Builds the web demo: the wasm (release) and its JavaScript glue into web/pkg/. Needs the
# wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown) and wasm-bindgen-cli
# at the version of the wasm-bindgen crate in Cargo.lock (cargo install wasm-bindgen-cli
# --version <it>). `web/build.sh serve [PORT]` then serves web/ at http://localhost:PORT (8000).
set -euo pipefail
cd "$(dirname "$0")"
# What it needs, checked first, each missing piece named with the command that installs it.
missing=0
if ! rustup target list --installed 2>/dev/null | grep -x wasm32-unknown-unknown >/dev/null; then
    echo "web/build.sh: the wasm32-unknown-unknown target is missing: rustup target add wasm32-unknown-unknown" >&2
    missing=1
fi
want=$(grep -A1 '^name = "wasm-bindgen"$' ../Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]; then
    echo "web/build.sh: wasm-bindgen $want is missing (found: $(wasm-bindgen --version 2>/dev/null || echo none)):" \
        "cargo install --force wasm-bindgen-cli --version $want (about 11 minutes on 2 cores)" >&2
    missing=1
fi
if [ "$missing" = 1 ]; then
    exit 1
fi
cargo build --release --target wasm32-unknown-unknown
wasm-bindgen --target web --no-typescript --out-dir pkg ../target/wasm32-unknown-unknown/release/shoal_web.wasm
if [ "${1:-}" = serve ]; then
    port="${2:-8000}"
    echo "serving the demo at http://localhost:$port (Ctrl-C stops)"
    exec python3 -m http.server -d . "$port"
fi
