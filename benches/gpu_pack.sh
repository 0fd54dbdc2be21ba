#!/usr/bin/env bash
# Packs what benches/gpu_table.sh needs on a bare GPU machine that reaches no registry (the lent
# H200: its image has CUDA, CuPy and NumPy, no Vulkan loader, no Warp, no Taichi), within the 64 MiB
# a call carries: .gl/ (Debian's Vulkan loader and EGL packages, unpacked there by gpu_table.sh),
# .peers/shoal.xz (a stripped release build, 3.4 MB) and .peers/peers.tar.xz (warp-lang 1.0.2
# without its CPU compiler warp-clang.so and examples, Taichi 1.7.4 without its C API library and
# headers, and dill, for Python 3.12: 43 MB). Both folders are listed in .git/info/exclude.
#
#   benches/gpu_pack.sh        then, on the GPU machine: bash benches/gpu_table.sh
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.gl/' .git/info/exclude 2>/dev/null || echo /.gl/ >>.git/info/exclude
grep -qx '/.peers/' .git/info/exclude 2>/dev/null || echo /.peers/ >>.git/info/exclude
mkdir -p .gl .peers /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
# shellcheck disable=SC2086
apt-get $o update -qq
# shellcheck disable=SC2086
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
cargo build --release --bin shoal
strip -o /tmp/shoal.stripped target/release/shoal
xz -T0 -9 -c /tmp/shoal.stripped >.peers/shoal.xz
wheels=$(mktemp -d)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$wheels" warp-lang==1.0.2 taichi==1.7.4 dill
site=$(mktemp -d)
for w in "$wheels"/*.whl; do unzip -q -o "$w" -d "$site"; done
# Warp loads warp-clang.so only if it is there (CPU kernels); Python's Taichi never loads its C API.
rm -rf "$site"/warp/bin/warp-clang.so "$site"/warp/examples "$site"/warp/tests "$site"/taichi/_lib/c_api \
    "$site"/taichi-*.data "$site"/dill-*.data "$site"/taichi/assets/static/imgs
tar -cJf .peers/peers.tar.xz -C "$site" .
rm -rf "$wheels" "$site"
du -sh .gl .peers
