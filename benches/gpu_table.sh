#!/usr/bin/env bash
# The GPU table of docs/performance.md: the explicit step, an ADI step, the default scene's passes, the
# shallow-water model and the pipes at 1024², 4096² and 8192², each by `shoal run --profile` (GPU
# timestamps per pass where the model takes them, bytes per cell and dispatches from the cost model,
# the wall clock's steps/s), the Navier-Stokes layer's presets as shipped, then the same explicit
# scheme in peers (benches/peer/explicit_peer.py: Warp, Taichi, CUDA C) on the same card, in the
# same run (SHOAL_NO_PEER=1 leaves them out).
#
#   benches/gpu_table.sh [SHOAL] [SIZES...]     e.g. benches/gpu_table.sh target/release/shoal 1024 4096
#                                               ("" for SHOAL: the packed .peers/shoal.xz)
#   ... | tee table.txt; python3 benches/gpu_summary.py table.txt     docs/performance.md's rows from it
#
# The scenes are the benches' basin (4 m square, 1 m deep, a 2 cm bump, one substep): "explicit" and
# "adi" with no volume correction and no probes (the bare step, Courant number 0.2), "default" with
# the built-in scene's passes (the global correction and a probe), "sw" the shallow-water model
# (second order: MUSCL, HLL, SSP-RK2's two stages; 2·sqrt(g·d)·dt/dx = 0.28, so one substep) and
# "pipes" seed 004's columns with their spray. SHOAL_KINDS="explicit sw" picks the scenes,
# SHOAL_STEPS=N the steps a run (768 at least), SHOAL_NS=0 leaves the Navier-Stokes presets out;
# each run is cut at SHOAL_RUN_LIMIT seconds (120; killed 10 s after, if it does not stop), so one
# that hangs costs the table one row, and its exit status is printed ("# exit N").
# On a bare GPU machine (2026-11-28's H200): shoal needs only the Vulkan loader beside the driver
# (libvulkan1; VK_DRIVER_FILES=<the driver's icd.json> where the loader does not find it), and the
# peers need CuPy and warp-lang; a stripped release build of shoal is 12 MB (3.3 MB xz'd).
#
# On the lent GPU machine (nothing can be installed there): benches/gpu_pack.sh, run here first,
# leaves .gl/ (the Vulkan loader's and EGL's Debian packages) and .peers/ (the stripped binary and
# the peers' trimmed Python packages, 46 MB); carried there, this script unpacks them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -d "$root/.gl" ] && ! ldconfig -p | grep -q libvulkan.so.1; then
    for f in "$root"/.gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then export VK_DRIVER_FILES=$icd; fi
if [ -f "$root/.peers/peers.tar.xz" ]; then
    mkdir -p /tmp/shoal-peers && tar -xJf "$root/.peers/peers.tar.xz" -C /tmp/shoal-peers
    export PYTHONPATH=/tmp/shoal-peers${PYTHONPATH:+:$PYTHONPATH}
fi
if [ -z "${1:-}" ] && [ -f "$root/.peers/shoal.xz" ]; then
    xz -dc "$root/.peers/shoal.xz" >/tmp/shoal-bench && chmod +x /tmp/shoal-bench
    shift || true
    set -- /tmp/shoal-bench "$@"
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv || true
shoal=${1:-target/release/shoal}
shift || true
sizes=${*:-1024 4096 8192}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scene() { # name n solver correction probe [model]
    python3 - "$@" <<'EOF'
import math, sys
name, n, solver, correction, probe = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
model = sys.argv[6] if len(sys.argv) > 6 else "height-field"
dx = 4.0 / n
# The shallow-water model wants 2·sqrt(g·d)·dt/dx ≤ 0.3 over the bump's 1.02 m for one substep.
courant = 0.14 / math.sqrt(1.02) if model == "shallow-water" else 0.2
physics = (f'solver = "{solver}"\nvolume_correction = "{correction}"\ndamping = 0.001\n'
           if model == "height-field" else f'model = "{model}"\n')
print(f'name = "{name} {n}"\n[grid]\nnx = {n}\nny = {n}\ndx = {dx!r}\n[time]\ndt = {courant * dx / math.sqrt(9.81)!r}\n'
      f'substeps = 1\n[physics]\n{physics}'
      f'[terrain]\nflat = -1.0\n[[water.bump]]\nx = 2.0\ny = 2.0\nradius = 0.3\nheight = 0.02\n[output]\nevery = 0\n'
      + ('[[output.probe]]\nname = "p"\nx = 1.0\ny = 1.0\n' if probe == "yes" else ''))
EOF
}

limit=${SHOAL_RUN_LIMIT:-120}
"$shoal" info
for n in $sizes; do
    # ~200 GB of explicit-step traffic per size (~0.1 s on a GPU at 2–3 TB/s).
    steps=${SHOAL_STEPS:-$(( 200000000000 / (n * n * 28) ))}
    steps=$(( steps < 768 ? 768 : steps ))   # three chunks of 256 at least: warm-up, timed, wall clock
    for kind in ${SHOAL_KINDS:-explicit adi default sw pipes}; do
        case $kind in
            explicit) scene explicit "$n" explicit none no ;;
            adi) scene adi "$n" adi none no ;;
            default) scene default "$n" explicit global yes ;;
            sw) scene sw "$n" explicit none no shallow-water ;;
            pipes) scene pipes "$n" explicit none no pipes ;;
        esac >"$work/$kind.toml"
        echo "## $kind $n² ($steps steps)"
        # A grid the adapter cannot hold says so and the table goes on.
        timeout -k 10 "$limit" "$shoal" run "$work/$kind.toml" --backend gpu --steps "$steps" --out "$work/out" --force --quiet --profile \
            || echo "# exit $?"
    done
done
if [ "${SHOAL_NS:-1}" != 0 ]; then
    # The Navier-Stokes layer's presets as shipped (small grids: dispatches, not bytes, bound them).
    for preset in jet_tank sluice_gate wind_waves moonlight_cove; do
        echo "## navier-stokes $preset"
        timeout -k 10 "$limit" "$shoal" run "$root/scenes/$preset.toml" --backend gpu --out "$work/out" --force --quiet --profile \
            || echo "# exit $?"
    done
fi
if [ -z "${SHOAL_NO_PEER:-}" ]; then
    echo "## peer"
    python3 "$(dirname "$0")/peer/explicit_peer.py" $sizes
fi
