#!/usr/bin/env bash
# The README's GPU table: the explicit step, an ADI step and the default scene's passes at 1024²,
# 4096² and 8192², each by `shoal run --profile` (GPU timestamps per pass, bytes per cell and
# bandwidth from the cost model, the wall clock's steps/s), then the same explicit scheme in a peer
# (benches/peer/explicit_peer.py) on the same card, in the same run (SHOAL_NO_PEER=1 leaves it out).
#
#   benches/gpu_table.sh [SHOAL] [SIZES...]     e.g. benches/gpu_table.sh target/release/shoal 1024 4096
#
# The scenes are the benches' basin (4 m square, 1 m deep, a 2 cm bump, Courant number 0.2, one
# substep): "explicit" and "adi" with no volume correction and no probes (the bare step), and
# "default" with the built-in scene's passes (the global correction and a probe).
# SHOAL_KINDS="explicit default" picks the scenes, SHOAL_STEPS=N the steps a run (768 at least).
# On a bare GPU machine (2026-11-28's H200): shoal needs only the Vulkan loader beside the driver
# (libvulkan1; VK_DRIVER_FILES=<the driver's icd.json> where the loader does not find it), and the
# peers need CuPy and warp-lang; a stripped release build of shoal is 12 MB (3.3 MB xz'd).
set -euo pipefail
shoal=${1:-target/release/shoal}
shift || true
sizes=${*:-1024 4096 8192}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scene() { # name n solver correction probe
    python3 - "$@" <<'EOF'
import math, sys
name, n, solver, correction, probe = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
dx = 4.0 / n
print(f'name = "{name} {n}"\n[grid]\nnx = {n}\nny = {n}\ndx = {dx!r}\n[time]\ndt = {0.2 * dx / math.sqrt(9.81)!r}\n'
      f'substeps = 1\n[physics]\nsolver = "{solver}"\nvolume_correction = "{correction}"\ndamping = 0.001\n'
      f'[terrain]\nflat = -1.0\n[[water.bump]]\nx = 2.0\ny = 2.0\nradius = 0.3\nheight = 0.02\n[output]\nevery = 0\n'
      + ('[[output.probe]]\nname = "p"\nx = 1.0\ny = 1.0\n' if probe == "yes" else ''))
EOF
}

"$shoal" info
for n in $sizes; do
    # ~200 GB of explicit-step traffic per size (~0.1 s on a GPU at 2–3 TB/s).
    steps=${SHOAL_STEPS:-$(( 200000000000 / (n * n * 28) ))}
    steps=$(( steps < 768 ? 768 : steps ))   # three chunks of 256 at least: warm-up, timed, wall clock
    for kind in ${SHOAL_KINDS:-explicit adi default}; do
        case $kind in
            explicit) scene explicit "$n" explicit none no ;;
            adi) scene adi "$n" adi none no ;;
            default) scene default "$n" explicit global yes ;;
        esac >"$work/$kind.toml"
        echo "## $kind $n² ($steps steps)"
        # A grid the adapter cannot hold says so and the table goes on.
        "$shoal" run "$work/$kind.toml" --backend gpu --steps "$steps" --out "$work/out" --force --quiet --profile || true
    done
done
if [ -z "${SHOAL_NO_PEER:-}" ]; then
    echo "## peer"
    python3 "$(dirname "$0")/peer/explicit_peer.py" $sizes
fi
