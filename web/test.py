"""The web demo in headless Chromium: serves web/, opens index.html?steps=N&report=1 for each
preset scene, and checks what the page posts back (drawing offscreen into a 2D canvas: headless
Chromium gives WebGPU on SwiftShader but no WebGPU canvas): that it started and met no WebGPU
error (either fails the test), that it ran N steps, that its water's volume equals the native CPU
backend's for the same scene and steps within the GPU-vs-CPU tolerance, and that its canvas is
not blank.

    python3 web/test.py [--scene all|default|beach|…] [--steps 60] [--shoal target/release/shoal]

Needs chromium, the built page (web/pkg/, see docs/browser.md), the shoal binary, and Pillow for
the picture (the CI's Python environment has it)."""

import argparse
import base64
import csv
import http.server
import io
import json
import os
import pathlib
import re
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
# Every preset the page offers: the scene files web/src/lib.rs includes, in its order.
PRESETS = re.findall(r'include_str!\("\.\./\.\./scenes/(\w+)\.toml"\)', (WEB / "src" / "lib.rs").read_text())
# The presets SwiftShader steps at about one a second run fewer steps (60 took a minute each of
# CI's browser phase); what the test checks (no WebGPU error, the native volume, a picture)
# shows as well after 20, and the presets added since run 20, or 4 where they read files (the
# rasters' and tables' scenes, each at 0.5–6 steps/s: 96 s for the ten, 2026-12-07).
SLOW = {
    "beach": 20, "run_up_sw": 20, "moonlight_cove": 20, "river": 20, "wind_waves": 8,
    "waterfall": 20, "rapids": 20, "forked_waterfall": 20, "bridge": 20, "rain_pond": 20,
    "fish_tank": 20, "standing_wave": 20,
    "jet_tank": 4, "sluice_gate": 4, "flume": 4, "storm_surge": 4, "storm_surge_sw": 4,
    "dam_break_valley": 4, "flash_flood": 4, "flash_flood_sw": 4, "river_reach": 4, "ea_test1": 4,
}
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


class Page:
    """Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in,
    fd 4 out, messages ended by a NUL), so the page is opened exactly as a visitor opens it and
    read while it runs, with nothing beyond the standard library."""

    def __init__(self, url, profile):
        to_browser, from_us = os.pipe()
        to_us, from_browser = os.pipe()

        def wire():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.browser = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", *EXTRA,
             f"--user-data-dir={profile}", "--window-size=900,700", "--remote-debugging-pipe", url],
            pass_fds=(3, 4), preexec_fn=wire, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.out, self.inp, self.buffer, self.last = os.fdopen(from_us, "wb"), to_us, b"", 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def call(self, method, session=None, **params):
        self.last += 1
        message = {"id": self.last, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        self.out.flush()
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed its DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.last:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", self.session, expression=expression, returnByValue=True)
        return result["result"].get("value")

    def evaluate_async(self, expression):
        """Evaluates an expression that gives a Promise and returns what it resolves to."""
        result = self.call("Runtime.evaluate", self.session, expression=expression, returnByValue=True,
                           awaitPromise=True)
        return result["result"].get("value")

    def mouse(self, kind, x, y, buttons=0):
        """A mouse event at (x, y) CSS pixels of the viewport, as a visitor's hand makes it
        (Chromium turns it into the pointer events the page listens to)."""
        button = "left" if kind != "mouseMoved" or buttons else "none"
        self.call("Input.dispatchMouseEvent", self.session, type=kind, x=x, y=y, button=button,
                  buttons=buttons, clickCount=1 if kind != "mouseMoved" else 0)

    def screenshot(self):
        return base64.b64decode(self.call("Page.captureScreenshot", self.session, format="png")["data"])

    def close(self):
        self.browser.kill()
        self.browser.wait()


# A visitor's page must keep running at least this long (wall time) after it starts: the
# per-frame staging buffers it once made ran Chromium out of mappable memory within a minute.
VISITOR_SECONDS = 45.0
# The default scene alone: a visitor's page costs ~45 s beyond its VISITOR_SECONDS on SwiftShader
# (its WebGPU canvas's pipelines), and every preset's page runs above (`check`); the beach's
# visitor run (98 s) found nothing the default's did not (2026-12-06).
VISITOR_PRESETS = ["default"]


def check_visitor(scene, args):
    """Opens index.html?scene=SCENE as a visitor does (no test parameters, the WebGPU canvas
    first): it must start, keep stepping with no error line for VISITOR_SECONDS, and show water
    on the screen (a screenshot of the page, not the canvas's own pixels)."""
    from PIL import Image  # noqa: E402

    server = serve([])
    url = f"http://127.0.0.1:{server.server_port}/index.html?scene={scene}"
    state = "document.getElementById('status').textContent"
    steps = "window.shoal ? window.shoal.demo.steps() : -1"
    with tempfile.TemporaryDirectory() as profile:
        page = Page(url, profile)
        try:
            waited, started, first = 0.0, None, None
            while waited < args.timeout:
                threading.Event().wait(1.0)
                waited += 1.0
                status = page.evaluate(state) or ""
                if "running" not in status and status != "starting…":
                    sys.exit(f"FAIL: {scene} as a visitor opens it: {status}")
                count = page.evaluate(steps)
                if count is not None and count >= 0:
                    if started is None:
                        started, first = waited, count
                    elif waited - started >= VISITOR_SECONDS:
                        break
            else:
                sys.exit(f"FAIL: {scene} as a visitor opens it: not running after {args.timeout:.0f} s")
            note = page.evaluate("document.getElementById('canvas-note').textContent")
            shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
            edits = check_edits(page, scene)
        finally:
            page.close()
            server.shutdown()
    assert count > first, f"{scene}: the page stopped stepping ({first} → {count} steps)"
    canvas = shot.crop((24, 0, 824, shot.size[1]))
    colours = len(canvas.getcolors(maxcolors=canvas.size[0] * canvas.size[1]))
    if args.picture:
        shot.save(args.picture.replace("{scene}", f"{scene}_visitor"))
    print(f"{scene} as a visitor opens it: {count - first} steps in {VISITOR_SECONDS:.0f} s, {status}"
          f"{'; ' + note if note else ''}; the screen shows {colours} colours; {edits}")
    assert colours > 100, f"{scene}: the visitor's screen is blank or flat ({colours} colours)"


# A click's splash (`Demo::splash`: `Water::disturb`, 4 cm at the centre of a 12 cm radius,
# the edits' falloff (1 − r²/R²)²) adds 0.04·π·0.12²/3 = 6.03e-4 m³ to what the grid's cells
# sample of it (the default scene's: +0.02 %, 2026-12-06); the water's volume must grow by it
# within 5 %.
SPLASH_VOLUME = 0.04 * 3.141592653589793 * 0.12 ** 2 / 3


def check_edits(page, scene):
    """A visitor's click at the canvas's centre splashes water onto what it looks at, and a drag
    across it brushes sand: the water's volume grows by the splash and then stays (the brush
    carries the water it lifts), the page steps on and shows no refusal. (What the brush does to
    the ground is the native tests' to check: the page reads back no ground.) Returns a line
    saying what was measured."""
    box = page.evaluate("(() => { const r = document.getElementById('water').getBoundingClientRect();"
                        " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    x, y = box
    volume = "window.shoal.demo.volume()"
    before = page.evaluate_async(volume)
    page.mouse("mousePressed", x, y, buttons=1)
    page.mouse("mouseReleased", x, y)
    threading.Event().wait(2.0)
    splashed = page.evaluate_async(volume)
    page.mouse("mousePressed", x - 60, y, buttons=1)
    for dx in range(-50, 70, 10):
        page.mouse("mouseMoved", x + dx, y, buttons=1)
        threading.Event().wait(0.05)
    page.mouse("mouseReleased", x + 60, y)
    threading.Event().wait(2.0)
    brushed = page.evaluate_async(volume)
    status = page.evaluate("document.getElementById('status').textContent") or ""
    assert status == f"{scene} running", f"{scene}: after a click and a drag the status reads {status!r}"
    grew = splashed - before
    assert abs(grew / SPLASH_VOLUME - 1) < 0.05, f"{scene}: a click added {grew:.3e} m³ (a splash is {SPLASH_VOLUME:.3e})"
    assert abs(brushed - splashed) < 1e-3 * splashed, f"{scene}: a drag changed the water {splashed} → {brushed} m³"
    return (f"a click splashed {grew:.3e} m³ in (the splash's {SPLASH_VOLUME:.3e}), "
            f"a drag brushed sand keeping the water to {abs(brushed - splashed) / splashed:.1e}")


def check_unknown(scene, args):
    """A visitor who names a scene the page has no preset of (a scene of their own: every scene in
    scenes/ is a preset) gets one line saying which presets there are, and no error of the
    page's own; every model runs in a browser now, so the line names none as unable to."""
    server = serve([])
    url = f"http://127.0.0.1:{server.server_port}/index.html?scene={scene}"
    with tempfile.TemporaryDirectory() as profile:
        page = Page(url, profile)
        try:
            waited, status = 0.0, ""
            while waited < args.timeout:
                threading.Event().wait(0.5)
                waited += 0.5
                if page.evaluate("document.getElementById('status').className") == "error":
                    status = page.evaluate("document.getElementById('status').textContent")
                    break
        finally:
            page.close()
            server.shutdown()
    print(f"{scene} as a visitor asks for it: {status}")
    assert "\n" not in status and "panicked" not in status, status
    assert "no preset scene" in status and "moonlight_cove" in status and "default" in status, status
    assert "does not run in a browser" not in status, status


def check(scene, args):
    steps = min(args.steps, SLOW.get(scene, args.steps))
    outcome = run_page(scene, steps, args.timeout)
    print(f"{scene}: the page ran {outcome['steps']} steps on {outcome['adapter']}, "
          f"{outcome['steps_per_second']:.0f} steps/s with its frames")
    assert outcome["steps"] == steps, outcome["steps"]

    expected, bodies = native_volume(args.shoal, scene, steps)
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


def needs(args):
    """What the test needs, each missing piece named with what provides it; the CLI (the native
    run each page is checked against) built with cargo when it is not there."""
    import shutil

    missing = []
    if shutil.which("chromium") is None:
        missing.append("chromium (apt-get install -y chromium)")
    if not (WEB / "pkg" / "shoal_web.js").exists():
        missing.append("the built page, web/pkg/ (web/build.sh)")
    try:
        import PIL  # noqa: F401
    except ImportError:
        missing.append("Pillow, for the pictures (pip install pillow)")
    if missing:
        sys.exit("web/test.py needs: " + "; ".join(missing))
    if args.shoal is None:
        args.shoal = str(REPO / "target" / "release" / "shoal")
        if not pathlib.Path(args.shoal).exists():
            print("web/test.py: building the shoal CLI (cargo build --release), which each page is checked against")
            subprocess.run(["cargo", "build", "--release", "--bin", "shoal"], cwd=REPO, check=True)
    elif not pathlib.Path(args.shoal).exists():
        sys.exit(f"web/test.py needs the shoal binary: {args.shoal} does not exist")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scene", default="all")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--shoal", default=None, help="the shoal binary (default: target/release/shoal, built if missing)")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--picture", default=None, help="keep each canvas here (PNG; {scene} is replaced)")
    args = parser.parse_args()
    needs(args)
    for scene in PRESETS if args.scene == "all" else [args.scene]:
        check(scene, args)
    for scene in VISITOR_PRESETS if args.scene == "all" else [args.scene]:
        check_visitor(scene, args)
    if args.scene == "all":
        check_unknown("my_own_valley", args)
    print("ok")


if __name__ == "__main__":
    main()
