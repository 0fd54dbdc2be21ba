"""The web demo in headless Chromium: serves web/, opens index.html?steps=N&report=1, and checks
what the page posts back (drawing offscreen into a 2D canvas: headless Chromium gives WebGPU on
SwiftShader but no WebGPU canvas): that it started (a failure to start fails the test), that it ran N
steps, that its water's volume equals the native CPU backend's for the same scene and steps
within the GPU-vs-CPU tolerance, and that its canvas is not blank.

    python3 web/test.py [--scene default] [--steps 120] [--shoal target/release/shoal]

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
        return float(rows[-1]["volume"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scene", default="default")
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--shoal", default=str(REPO / "target" / "release" / "shoal"))
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--picture", default=None, help="keep the canvas here (PNG)")
    args = parser.parse_args()

    posted = []
    server = serve(posted)
    url = f"http://127.0.0.1:{server.server_port}/index.html?scene={args.scene}&steps={args.steps}&report=1&canvas=2d"
    with tempfile.TemporaryDirectory() as profile:
        browser = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", *EXTRA,
             f"--user-data-dir={profile}", "--window-size=900,700", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            waited = 0.0
            while not posted and waited < args.timeout and browser.poll() is None:
                threading.Event().wait(0.25)
                waited += 0.25
        finally:
            browser.kill()
            server.shutdown()
    if not posted:
        sys.exit(f"FAIL: the page posted nothing in {args.timeout:.0f} s (it did not start)")
    outcome = posted[0]
    if "error" in outcome:
        sys.exit(f"FAIL: the page failed: {outcome['error']}")
    print(f"the page ran {outcome['steps']} steps of {args.scene!r} on {outcome['adapter']}")
    assert outcome["steps"] == args.steps, outcome["steps"]

    expected = native_volume(args.shoal, args.scene, args.steps)
    error = abs(outcome["volume"] - expected) / expected
    print(f"volume {outcome['volume']:.9g} m³ in the browser, {expected:.9g} m³ natively (cpu): {error:.2e} relative")
    assert error <= VOLUME_TOLERANCE, f"the volumes differ by {error:.2e} (tolerance {VOLUME_TOLERANCE:g})"

    from PIL import Image  # noqa: E402  (only the picture needs it)

    data = base64.b64decode(outcome["picture"].split(",", 1)[1])
    picture = Image.open(io.BytesIO(data)).convert("RGB")
    if args.picture:
        picture.save(args.picture)
    colours = len(set(picture.getdata()))
    print(f"the canvas: {picture.size[0]}×{picture.size[1]}, {colours} colours")
    assert picture.size == (800, 500), picture.size
    assert colours > 1000, f"the canvas is blank or flat ({colours} colours)"
    print("ok")


if __name__ == "__main__":
    main()
