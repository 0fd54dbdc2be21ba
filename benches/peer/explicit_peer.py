"""Shoal's explicit height-field step written in a peer, for a side-by-side on the same GPU.

The same scheme as wgsl/explicit.wgsl on a basin with reflecting walls: the per-step change
vel' = keep·vel + k·Σ d_face·(eta_nbr − eta), face depths with the wet/dry rule, the compensated
update eta' = eta + (vel' + carry) (TwoSum, the residual back into carry) and the dry-cell rule.
It moves what Shoal's step moves: eta, vel, carry and ground in, eta, vel and carry out (28 B per
cell; neighbours from cache).

Peers: NVIDIA Warp (a Python kernel compiled to CUDA), Taichi on its CUDA backend (fast_math off,
so the compensated sum survives) and, where CuPy is at hand, the same kernel as hand-written CUDA C
(the ceiling a compute-shader engine is measured against). Each is checked
against a NumPy step of the same formulas on a small grid before it is timed.

    python3 benches/peer/explicit_peer.py 1024 4096 8192
"""

import sys
import time

import numpy as np

G = 9.81
KEEP = 1.0 - 1e-3


def basin(n):
    """Shoal's bench basin: 4 m square, ground 1 m under the still water, a 2 cm bump."""
    dx = 4.0 / n
    dt = 0.2 * dx / np.sqrt(G)
    x = (np.arange(n) + 0.5) * dx
    r2 = (x[None, :] - 2.0) ** 2 + (x[:, None] - 2.0) ** 2
    eta = (0.02 * np.exp(-r2 / (2 * 0.3**2))).astype(np.float32)
    ground = np.full((n, n), -1.0, np.float32)
    k = np.float32(G * dt * dt / (dx * dx))
    return eta, ground, k


def numpy_step(eta, vel, carry, ground, k):
    """One step by the formulas, in float32, for checking the kernels."""
    d = np.maximum(eta - ground, 0).astype(np.float32)

    def face(e_n, d_n):
        upper = np.where(e_n > eta, d_n, d)
        fd = np.where(upper > 0, np.float32(0.5) * (d + d_n), np.float32(0))
        return (fd * (e_n - eta)).astype(np.float32)

    zero = np.zeros_like(eta)
    west = np.where(np.arange(eta.shape[1])[None, :] == 0, zero, face(np.roll(eta, 1, 1), np.roll(d, 1, 1)))
    east = np.where(np.arange(eta.shape[1])[None, :] == eta.shape[1] - 1, zero, face(np.roll(eta, -1, 1), np.roll(d, -1, 1)))
    south = np.where(np.arange(eta.shape[0])[:, None] == 0, zero, face(np.roll(eta, 1, 0), np.roll(d, 1, 0)))
    north = np.where(np.arange(eta.shape[0])[:, None] == eta.shape[0] - 1, zero, face(np.roll(eta, -1, 0), np.roll(d, -1, 0)))
    v = (np.float32(KEEP) * vel + k * (((west + east) + south) + north)).astype(np.float32)
    b = (v + carry).astype(np.float32)
    s = (eta + b).astype(np.float32)
    bb = (s - eta).astype(np.float32)
    err = ((eta - (s - bb)) + (b - bb)).astype(np.float32)
    dry = s <= ground
    return np.where(dry, ground, s), np.where(dry, 0, v).astype(np.float32), np.where(dry, 0, err).astype(np.float32)


CUDA = r"""
__device__ __forceinline__ float face(float e, float d, float en, float dn) {
    float upper = en > e ? dn : d;
    return (upper > 0.0f ? 0.5f * (d + dn) : 0.0f) * (en - e);
}
// One cell's update from its own values and its four neighbours' (level, ground).
__device__ __forceinline__ void cell(float e, float b, float v0, float c0,
                                     float ew, float bw, bool hw, float ee, float be, bool he,
                                     float es, float bs, bool hs, float en, float bn, bool hn,
                                     float k, float keep, float* eta_out, float* vel_out, float* carry) {
    float d = fmaxf(e - b, 0.0f);
    float w = hw ? face(e, d, ew, fmaxf(ew - bw, 0.0f)) : 0.0f;
    float ea = he ? face(e, d, ee, fmaxf(ee - be, 0.0f)) : 0.0f;
    float s = hs ? face(e, d, es, fmaxf(es - bs, 0.0f)) : 0.0f;
    float no = hn ? face(e, d, en, fmaxf(en - bn, 0.0f)) : 0.0f;
    float v = __fadd_rn(__fmul_rn(keep, v0), __fmul_rn(k, __fadd_rn(__fadd_rn(__fadd_rn(w, ea), s), no)));
    float add = __fadd_rn(v, c0);
    float sum = __fadd_rn(e, add);
    float bv = __fsub_rn(sum, e);
    float err = __fadd_rn(__fsub_rn(e, __fsub_rn(sum, bv)), __fsub_rn(add, bv));
    bool dry = sum <= b;
    *eta_out = dry ? b : sum;
    *vel_out = dry ? 0.0f : v;
    *carry = dry ? 0.0f : err;
}
// ROWS consecutive rows a thread (the column's levels and grounds loaded once, in registers), the
// block's threads across the row: blockDim.x cells wide, blockDim.y * ROWS rows high.
extern "C" __global__ void step(const float* __restrict__ eta, const float* __restrict__ vel,
                                float* __restrict__ carry, const float* __restrict__ ground,
                                float* __restrict__ eta_out, float* __restrict__ vel_out,
                                int n, float k, float keep) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    if (i >= n || j0 >= n) return;
    float e[ROWS + 2], b[ROWS + 2], v[ROWS], c[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS + 2; r++) {
        int j = min(max(j0 + r - 1, 0), n - 1);
        e[r] = eta[j * n + i];
        b[r] = ground[j * n + i];
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        int j = min(j0 + r, n - 1);
        v[r] = vel[j * n + i];
        c[r] = carry[j * n + i];
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        int j = j0 + r;
        if (j >= n) break;
        int at = j * n + i;
        float ew = i > 0 ? eta[at - 1] : 0.0f, bw = i > 0 ? ground[at - 1] : 0.0f;
        float ee = i < n - 1 ? eta[at + 1] : 0.0f, be = i < n - 1 ? ground[at + 1] : 0.0f;
        cell(e[r + 1], b[r + 1], v[r], c[r], ew, bw, i > 0, ee, be, i < n - 1,
             e[r], b[r], j > 0, e[r + 2], b[r + 2], j < n - 1, k, keep, &eta_out[at], &vel_out[at], &carry[at]);
    }
}
"""

# (block width, block height, rows a thread): 16×16 one cell a thread is the layout of Shoal's
# plain step; the others are the layouts a hand-tuned stencil tries (whole 128-byte rows a warp,
# several rows a thread with the column's loads shared).
LAYOUTS = [(16, 16, 1), (32, 8, 1), (64, 4, 1), (32, 8, 2), (32, 8, 4), (32, 4, 8)]


def run_cupy(sizes, steps_for):
    import cupy as cp

    def make(n):
        eta, ground, k = basin(n)
        bufs = [cp.asarray(eta), cp.zeros_like(cp.asarray(eta)), cp.zeros((n, n), cp.float32), cp.asarray(ground)]
        out = [cp.empty_like(bufs[0]), cp.empty_like(bufs[0])]
        return bufs, out, k

    def stepper(bx, by, rows):
        kernel = cp.RawKernel(CUDA, "step", options=(f"-DROWS={rows}",))

        def step(bufs, out, k, n):
            grid = ((n + bx - 1) // bx, (n + by * rows - 1) // (by * rows))
            kernel(grid, (bx, by), (bufs[0], bufs[1], bufs[2], bufs[3], out[0], out[1], np.int32(n), np.float32(k), np.float32(KEEP)))
            bufs[0], out[0] = out[0], bufs[0]
            bufs[1], out[1] = out[1], bufs[1]

        return step

    copy_ceiling(cp, sizes)
    for bx, by, rows in LAYOUTS:
        name = f"CUDA C (CuPy RawKernel), {bx}×{by}" + (f", {rows} rows a thread" if rows > 1 else "")
        step = stepper(bx, by, rows)
        try:
            check(make, step, lambda bufs: (cp.asnumpy(bufs[0]), cp.asnumpy(bufs[1])), name)
        except Exception as e:  # one layout failing leaves the others' figures
            print(f"# {name}: {type(e).__name__}: {e}", flush=True)
            continue
        time_sizes(name, make, step, cp.cuda.Device().synchronize, sizes, steps_for)


def copy_ceiling(cp, sizes):
    """What the card's memory gives a plain stream: a device-to-device copy of 7 float32 fields'
    worth (the step's 28 B per cell, 4 read and 3 written), as bytes read plus written per second."""
    for n in sizes:
        a = cp.ones(7 * n * n // 2, cp.float32)
        b = cp.empty_like(a)
        for _ in range(3):
            b[...] = a
        cp.cuda.Device().synchronize()
        reps = max(20, int(2e11 / (2 * a.nbytes)))
        start = time.perf_counter()
        for _ in range(reps):
            b[...] = a
        cp.cuda.Device().synchronize()
        seconds = time.perf_counter() - start
        print(f"| copy (CuPy), {a.nbytes / 2**20:.0f} MiB each way | {n}² | – | – | "
              f"{2 * a.nbytes * reps / seconds / 1e9:.0f} |", flush=True)
        del a, b


def run_warp(sizes, steps_for):
    import warp as wp

    wp.config.quiet = True
    wp.init()

    @wp.func
    def face(e: float, d: float, en: float, dn: float):
        # wp.select(condition, if false, if true), as Warp 1.0 spells it.
        upper = wp.select(en > e, d, dn)
        return wp.select(upper > 0.0, 0.0, 0.5 * (d + dn)) * (en - e)

    @wp.kernel
    def step_kernel(eta: wp.array2d(dtype=float), vel: wp.array2d(dtype=float), carry: wp.array2d(dtype=float),
                    ground: wp.array2d(dtype=float), eta_out: wp.array2d(dtype=float), vel_out: wp.array2d(dtype=float),
                    n: int, k: float, keep: float):
        j, i = wp.tid()
        e = eta[j, i]
        b = ground[j, i]
        d = wp.max(e - b, 0.0)
        w = float(0.0)
        ea = float(0.0)
        s = float(0.0)
        no = float(0.0)
        if i > 0:
            en = eta[j, i - 1]
            w = face(e, d, en, wp.max(en - ground[j, i - 1], 0.0))
        if i < n - 1:
            en = eta[j, i + 1]
            ea = face(e, d, en, wp.max(en - ground[j, i + 1], 0.0))
        if j > 0:
            en = eta[j - 1, i]
            s = face(e, d, en, wp.max(en - ground[j - 1, i], 0.0))
        if j < n - 1:
            en = eta[j + 1, i]
            no = face(e, d, en, wp.max(en - ground[j + 1, i], 0.0))
        v = keep * vel[j, i] + k * (((w + ea) + s) + no)
        add = v + carry[j, i]
        total = e + add
        bv = total - e
        err = (e - (total - bv)) + (add - bv)
        if total <= b:
            eta_out[j, i] = b
            vel_out[j, i] = 0.0
            carry[j, i] = 0.0
        else:
            eta_out[j, i] = total
            vel_out[j, i] = v
            carry[j, i] = err

    def make(n):
        eta, ground, k = basin(n)
        z = np.zeros_like(eta)
        bufs = [wp.array(eta, dtype=float), wp.array(z, dtype=float), wp.array(z, dtype=float), wp.array(ground, dtype=float)]
        out = [wp.zeros((n, n), dtype=float), wp.zeros((n, n), dtype=float)]
        return bufs, out, k

    def step(bufs, out, k, n):
        wp.launch(step_kernel, dim=(n, n), inputs=[bufs[0], bufs[1], bufs[2], bufs[3], out[0], out[1], n, float(k), KEEP])
        bufs[0], out[0] = out[0], bufs[0]
        bufs[1], out[1] = out[1], bufs[1]

    check(make, step, lambda bufs: (bufs[0].numpy(), bufs[1].numpy()), f"warp {wp.config.version}")
    time_sizes(f"NVIDIA Warp {wp.config.version}", make, step, wp.synchronize, sizes, steps_for)


def run_taichi(sizes, steps_for):
    import taichi as ti

    # fast_math off: it may reassociate the compensated sum (TwoSum), which is the scheme.
    ti.init(arch=ti.cuda, fast_math=False, offline_cache=False, log_level=ti.WARN)

    @ti.func
    def face(e, d, en, dn):
        upper = dn if en > e else d
        return (0.5 * (d + dn) if upper > 0.0 else 0.0) * (en - e)

    @ti.kernel
    def step_kernel(eta: ti.template(), vel: ti.template(), carry: ti.template(), ground: ti.template(),
                    eta_out: ti.template(), vel_out: ti.template(), n: ti.i32, k: ti.f32, keep: ti.f32):
        for j, i in ti.ndrange(n, n):
            e = eta[j, i]
            b = ground[j, i]
            d = ti.max(e - b, 0.0)
            w = 0.0
            ea = 0.0
            s = 0.0
            no = 0.0
            if i > 0:
                en = eta[j, i - 1]
                w = face(e, d, en, ti.max(en - ground[j, i - 1], 0.0))
            if i < n - 1:
                en = eta[j, i + 1]
                ea = face(e, d, en, ti.max(en - ground[j, i + 1], 0.0))
            if j > 0:
                en = eta[j - 1, i]
                s = face(e, d, en, ti.max(en - ground[j - 1, i], 0.0))
            if j < n - 1:
                en = eta[j + 1, i]
                no = face(e, d, en, ti.max(en - ground[j + 1, i], 0.0))
            v = keep * vel[j, i] + k * (((w + ea) + s) + no)
            add = v + carry[j, i]
            total = e + add
            bv = total - e
            err = (e - (total - bv)) + (add - bv)
            if total <= b:
                eta_out[j, i] = b
                vel_out[j, i] = 0.0
                carry[j, i] = 0.0
            else:
                eta_out[j, i] = total
                vel_out[j, i] = v
                carry[j, i] = err

    def make(n):
        eta, ground, k = basin(n)
        fields = [ti.field(ti.f32, shape=(n, n)) for _ in range(6)]
        fields[0].from_numpy(eta)
        fields[3].from_numpy(ground)
        for f in (fields[1], fields[2], fields[4], fields[5]):
            f.fill(0.0)
        return fields[:4], fields[4:], k

    def step(bufs, out, k, n):
        step_kernel(bufs[0], bufs[1], bufs[2], bufs[3], out[0], out[1], n, float(k), KEEP)
        bufs[0], out[0] = out[0], bufs[0]
        bufs[1], out[1] = out[1], bufs[1]

    name = f"Taichi {'.'.join(map(str, ti.__version__))} (CUDA)"
    check(make, step, lambda bufs: (bufs[0].to_numpy(), bufs[1].to_numpy()), name)
    time_sizes(name, make, step, ti.sync, sizes, steps_for)


def check(make, step, read, name, n=128, steps=50):
    """The kernel against NumPy's float32 step: within 1e-6 m after 50 steps (the kernels may
    fuse a multiply-add where NumPy rounds twice: a few ulps of the 2 cm bump per step)."""
    bufs, out, k = make(n)
    eta, ground, _ = basin(n)
    vel = np.zeros_like(eta)
    carry = np.zeros_like(eta)
    for _ in range(steps):
        step(bufs, out, k, n)
        eta, vel, carry = numpy_step(eta, vel, carry, ground, k)
    got, _ = read(bufs)
    diff = float(np.abs(got - eta).max())
    print(f"# {name}: max |eta − NumPy's| after {steps} steps at {n}²: {diff:.2e} m", flush=True)
    if not diff < 1e-6:
        raise RuntimeError(f"{name} does not run the same scheme")


def time_sizes(name, make, step, sync, sizes, steps_for):
    """Times `step` at each size: 10 steps to warm up, then `steps_for(n)` between two waits for
    the device (`sync`), so the clock stops when the GPU is done."""
    for n in sizes:
        bufs, out, k = make(n)
        for _ in range(10):
            step(bufs, out, k, n)
        sync()
        steps = steps_for(n)
        start = time.perf_counter()
        for _ in range(steps):
            step(bufs, out, k, n)
        sync()
        report(name, n, steps, time.perf_counter() - start)
        del bufs, out


def report(name, n, steps, seconds):
    cells = n * n * steps
    print(f"| {name} | {n}² | {steps / seconds:.1f} | {cells / seconds / 1e9:.2f} | "
          f"{28 * cells / seconds / 1e9:.0f} |", flush=True)


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [1024, 4096, 8192]
    steps_for = lambda n: max(100, int(2e11 / (n * n * 28)))  # ~200 GB of traffic a size, as gpu_table.sh
    print("| peer | grid | steps/s | Gcell-steps/s | GB/s at 28 B/cell |\n|---|---|---|---|---|", flush=True)
    for runner in (run_warp, run_taichi, run_cupy):
        try:
            runner(sizes, steps_for)
        except Exception as e:  # one peer missing or failing leaves the other's figures
            print(f"# {runner.__name__}: {type(e).__name__}: {e}", flush=True)
