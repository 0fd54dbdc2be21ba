"""Waves lapping on a beach, from Python: run scenes/beach.toml, draw the surface as the wave
comes ashore and the two gauges' records with matplotlib, and save the figure.

    python python/examples/beach_gauge.py --out beach.png
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import shoal  # noqa: E402

SCENE = pathlib.Path(__file__).resolve().parents[2] / "scenes" / "beach.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None, help="steps to run (default: the scene's)")
    parser.add_argument("--at", type=float, default=1.2, help="seconds: when to draw the surface")
    parser.add_argument("--backend", default="auto", help='"auto", "gpu", "cpu" or "reference"')
    parser.add_argument("--out", default="beach_gauge.png", help="the figure (PNG)")
    args = parser.parse_args()

    scene = shoal.Scene.from_file(SCENE)
    sim = shoal.Simulation(scene, backend=args.backend)
    steps = args.steps or scene.steps
    first = min(steps, round(args.at / scene.dt))
    sim.step(first)
    h, b, d, t = sim.surface(), sim.ground(), sim.depth(), sim.time
    sim.step(steps - first)

    extent = sim.extent  # (west, east, south, north): origin="lower" puts north up
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), constrained_layout=True)

    # The surface where there is water, the ground (grey) where there is none.
    water = np.ma.masked_where(d <= 0, h)
    top.imshow(b, origin="lower", extent=extent, cmap="Greys_r")
    image = top.imshow(water, origin="lower", extent=extent, cmap="RdBu_r", vmin=-0.03, vmax=0.03)
    figure.colorbar(image, ax=top, label="surface h (m)")
    top.set_title(f"{scene.name}: t = {t:.2f} s on {sim.backend}")
    top.set_xlabel("x (m)")
    top.set_ylabel("y (m)")

    probes = sim.probes()
    for name in probes.dtype.names[2:]:
        bottom.plot(probes["time"], probes[name] * 100, label=name)
    bottom.set_xlabel("time (s)")
    bottom.set_ylabel("surface at the gauge (cm)")
    bottom.legend()
    bottom.grid(alpha=0.3)

    figure.savefig(args.out, dpi=110)
    print(f"wrote {args.out}: {sim.step_index} steps, volume {sim.stats()['volume']:.4f} m³")


if __name__ == "__main__":
    main()
