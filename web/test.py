"""The web demo in headless Chromium: serves web/, opens index.html?steps=N&report=1 for each
preset scene, and checks what the page posts back (drawing offscreen into a 2D canvas: headless
Chromium gives WebGPU on SwiftShader but no WebGPU canvas): that it started and met no WebGPU
error (either fails the test), that it ran N steps, that its water's volume equals the native CPU
backend's for the same scene and steps within the GPU-vs-CPU tolerance, and that its canvas is
not blank.

    python3 web/test.py [--scene all|default|beach|…] [--steps 60] [--shoal target/release/shoal]

Needs chromium, the built page (web/pkg/, see the README), the shoal binary, and Pillow for
the picture (the CI's Python environment has it)."""

import argparse
import base64
import csv
import http.server
import io
import json
import pathlib
import subprocess
import sys
import tempfile
import threading

WEB = pathlib.Path(__file__).resolve().parent
REPO = WEB.parent

# f32 depths summed in f64 on both sides, after N steps of the same passes: the GPU-vs-CPU
# tolerance on heights (4 ulp a step) over the whole volume is far below this; 1e-6 relative is
# what the native GPU-vs-CPU volume tests hold.
VOLUME_TOLERANCE = 1e-6
# With bodies the page's volume (Σ depth under the drawn surface) also holds the water a body
# displaces, which follows the body's place: the GPU's and the CPU's bodies agree to the coupling
# solve's tolerance, not to rounding (measured: 8e-5 relative on floating_blocks after 60 steps).
BODY_VOLUME_TOLERANCE = 1e-3
PRESETS = ["default", "beach", "cube_drop", "floating_blocks", "wake", "open_sea", "run_up_sw"]
EXTRA = __import__("os").environ.get("CHROMIUM_FLAGS", "").split()


def serve(posted):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(WEB), **kwargs)

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(204)
            self.end_headers()
            posted.append(json.loads(body))

        def log_message(self, *args):
            pass

    Handler.extensions_map[".wasm"] = "application/wasm"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def native_volume(shoal, scene, steps):
    with tempfile.TemporaryDirectory() as out:
        scene_file = REPO / "scenes" / f"{scene}.toml"
        subprocess.run(
            [shoal, "run", scene_file, "--backend", "cpu", "--steps", str(steps), "--out", out, "-q"],
            check=True,
        )
        with open(pathlib.Path(out) / "stats.csv") as table:
            rows = list(csv.DictReader(table))
        assert int(rows[-1]["step"]) == steps, rows[-1]
        displaced, bodies = 0.0, pathlib.Path(out) / "bodies.csv"
        if bodies.exists():
            with open(bodies) as table:
                displaced = sum(float(r["displaced"]) for r in csv.DictReader(table) if int(r["step"]) == steps)
        return float(rows[-1]["volume"]) + displaced, bodies.exists()


def run_page(scene, steps, timeout):
    """Opens the page on `scene` for `steps` steps; returns what it posted, or exits saying why not."""
    posted = []
    server = serve(posted)
    url = f"http://127.0.0.1:{server.server_port}/index.html?scene={scene}&steps={steps}&report=1&canvas=2d"
    with tempfile.TemporaryDirectory() as profile:
        browser = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", *EXTRA,
             f"--user-data-dir={profile}", "--window-size=900,700", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            waited = 0.0
            while not posted and waited < timeout and browser.poll() is None:
                threading.Event().wait(0.25)
                waited += 0.25
        finally:
            browser.kill()
            server.shutdown()
    if not posted:
        sys.exit(f"FAIL: {scene}: the page posted nothing in {timeout:.0f} s (it did not start)")
    outcome = posted[0]
    if "error" in outcome:
        sys.exit(f"FAIL: {scene}: the page failed: {outcome['error']}")
    return outcome


def check(scene, args):
    outcome = run_page(scene, args.steps, args.timeout)
    print(f"{scene}: the page ran {outcome['steps']} steps on {outcome['adapter']}, "
          f"{outcome['steps_per_second']:.0f} steps/s with its frames")
    assert outcome["steps"] == args.steps, outcome["steps"]

    expected, bodies = native_volume(args.shoal, scene, args.steps)
    error = abs(outcome["volume"] - expected) / expected
    tolerance = BODY_VOLUME_TOLERANCE if bodies else VOLUME_TOLERANCE
    print(f"  volume {outcome['volume']:.9g} m³ in the browser, {expected:.9g} m³ natively (cpu): {error:.2e} relative")
    assert error <= tolerance, f"{scene}: the volumes differ by {error:.2e} (tolerance {tolerance:g})"

    from PIL import Image  # noqa: E402  (only the picture needs it)

    data = base64.b64decode(outcome["picture"].split(",", 1)[1])
    picture = Image.open(io.BytesIO(data)).convert("RGB")
    if args.picture:
        picture.save(args.picture.replace("{scene}", scene))
    colours = len(picture.getcolors(maxcolors=800 * 500))
    print(f"  the canvas: {picture.size[0]}×{picture.size[1]}, {colours} colours")
    assert picture.size == (800, 500), picture.size
    # A canvas left blank has one colour (the wake before its camera was fixed); the flattest
    # preset drawn, the wake's 120 m lake at 60 steps, 232.
    assert colours > 100, f"{scene}: the canvas is blank or flat ({colours} colours)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scene", default="all")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--shoal", default=str(REPO / "target" / "release" / "shoal"))
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--picture", default=None, help="keep each canvas here (PNG; {scene} is replaced)")
    args = parser.parse_args()
    for scene in PRESETS if args.scene == "all" else [args.scene]:
        check(scene, args)
    print("ok")


if __name__ == "__main__":
    main()
