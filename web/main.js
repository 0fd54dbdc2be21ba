// The demo page: starts Shoal (web/src/lib.rs, built to pkg/ by wasm-bindgen) on WebGPU in the
// canvas and drives it. With ?steps=N it runs exactly N steps, reads the volume back and writes
// {"steps", "volume", "adapter"} into #result; with ?report=1 as well it posts that, and the
// canvas as a PNG, to /result of the server that served it (web/test.py).
import init, { Demo, device_lost, last_panic, presets } from "./pkg/shoal_web.js";

const params = new URLSearchParams(location.search);
const sceneName = params.get("scene") || "default";
const testSteps = params.has("steps") ? Number(params.get("steps")) : null;
const stepsPerFrame = Number(params.get("per_frame") || 2);
const report = params.has("report");
// ?canvas=2d: draw offscreen and put each frame into a 2D canvas (for browsers that give WebGPU
// but no WebGPU canvas, as headless Chromium on a software adapter).
// Without it the page draws into the canvas's WebGPU context, and falls back to the 2D path by
// itself if that loses the device (headless Chromium's SwiftShader does at the first frame).
const offscreen = params.get("canvas") === "2d";

const status = document.getElementById("status");
const result = document.getElementById("result");
const canvas = document.getElementById("water");

function safe(f) {
  try { return f(); } catch (e) { return ""; }
}

function publish(outcome) {
  result.textContent = JSON.stringify(outcome);
  if (report) fetch("/result", { method: "POST", body: JSON.stringify(outcome) });
}

// One line for the page: the first line of what failed and of the panic behind it (a panic in
// wasm reaches JavaScript as "RuntimeError: unreachable", its message comes from the hook).
function firstLine(text) {
  return String(text).split("\n")[0].replace(/^RuntimeError: unreachable\s*/, "").trim();
}

function fail(message) {
  message = firstLine(message);
  const panic = last_panic ? firstLine(safe(last_panic)) : "";
  if (panic && !message.includes(panic)) message += ` (${panic})`;
  status.textContent = message;
  status.className = "error";
  publish({ error: message });
}

async function main() {
  if (!navigator.gpu) {
    fail("This browser has no WebGPU: Shoal needs it (Chrome or Edge 113+, Safari 26+, or Firefox with WebGPU on).");
    return;
  }
  await init();
  const choice = document.getElementById("scene");
  for (const name of presets()) {
    const option = new Option(name.replace("_", " "), name, false, name === sceneName);
    choice.add(option);
  }
  choice.onchange = () => { params.set("scene", choice.value); location.search = params.toString(); };

  if (params.has("lost")) {
    document.getElementById("canvas-note").textContent =
      `The WebGPU canvas lost its device (${params.get("lost")}): drawing through a 2D canvas instead.`;
  }
  await run();
}

// Starts the demo on the current canvas and drives it, frame after frame.
async function run() {
  let demo;
  try {
    demo = await Demo.start(canvas, sceneName, offscreen);
  } catch (e) {
    fail(`Shoal could not start: ${e}`);
    return;
  }
  window.shoal = { demo, offscreen };
  document.getElementById("adapter").textContent = `Adapter: ${demo.adapter()}; ${demo.limits()}.`;
  status.textContent = `${sceneName} running`;

  // Pointer: a click splashes, a drag brushes sand (Shift: digs). A model that takes no edits
  // in place (the Navier-Stokes layer) refuses them with a message, shown beside the status and
  // not as a failure: the water runs on.
  const edit = (apply) => {
    try {
      apply();
    } catch (e) {
      status.textContent = `${sceneName} running; ${firstLine(e)}`;
    }
  };
  const ndc = (event) => {
    const r = canvas.getBoundingClientRect();
    return [((event.clientX - r.left) / r.width) * 2 - 1, 1 - ((event.clientY - r.top) / r.height) * 2];
  };
  let down = null, dragged = false;
  canvas.onpointerdown = (e) => { down = ndc(e); dragged = false; canvas.setPointerCapture(e.pointerId); };
  canvas.onpointermove = (e) => {
    if (!down) return;
    const [x, y] = ndc(e);
    if (Math.hypot(x - down[0], y - down[1]) > 0.01) dragged = true;
    if (dragged) edit(() => demo.brush(x, y, e.shiftKey ? -0.004 : 0.004));
  };
  canvas.onpointerup = (e) => {
    if (down && !dragged) edit(() => demo.splash(...ndc(e)));
    down = null;
  };

  const rate = document.getElementById("rate");
  let last = performance.now(), lastSteps = 0;
  const began = performance.now();
  const frame = async () => {
    const left = testSteps === null ? stepsPerFrame : Math.min(stepsPerFrame, testSteps - demo.steps());
    try {
      demo.frame(left);
      if (offscreen) await demo.show();
    } catch (e) {
      const lost = safe(device_lost);
      if (lost && !offscreen) {
        // Where the WebGPU canvas took the device down (headless Chromium's SwiftShader does at
        // the first frame it presents), the page cannot get another adapter until it reloads:
        // reload once on the 2D path, saying why.
        params.set("canvas", "2d");
        params.set("lost", firstLine(lost));
        location.replace(`${location.pathname}?${params}`);
        return;
      }
      fail(`Shoal stopped: ${e}`);
      return;
    }
    const now = performance.now();
    if (now - last > 500) {
      rate.textContent = `${Math.round(((demo.steps() - lastSteps) * 1000) / (now - last))} steps/s`;
      last = now;
      lastSteps = demo.steps();
    }
    if (testSteps !== null && demo.steps() >= testSteps) {
      const volume = await demo.volume();
      // WebGPU reports errors out of band (an uncaptured error, a lost device): a run that met
      // one fails, whatever it drew.
      const problem = safe(last_panic);
      if (problem) {
        fail(`WebGPU failed during the run: ${problem}`);
        return;
      }
      // Draw once more (no steps) and take the canvas in the same task, before it is presented.
      demo.frame(0);
      if (offscreen) await demo.show();
      const picture = canvas.toDataURL("image/png");
      // Steps and frames together, on this adapter: the page's own pace, readbacks included.
      const pace = (demo.steps() * 1000) / (performance.now() - began);
      publish({ steps: demo.steps(), volume, adapter: demo.adapter(), picture, steps_per_second: pace });
      status.textContent = `${sceneName}: ${demo.steps()} steps done`;
      return;
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

main().catch((e) => fail(`Shoal could not start: ${e}`));
