"""Shoal from Python, end to end: scenes, stepping, NumPy round trips, edits, GPU against CPU, the
command line's files, checkpoints, errors, the GIL and Ctrl-C.

Tolerances are stated where they are used; the GPU tests run on whatever adapter wgpu finds
(lavapipe in CI)."""

import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import shoal

REPO = pathlib.Path(__file__).resolve().parents[2]
SCENES = REPO / "scenes"

POOL = """
name = "python pool"
[grid]
nx = 48
ny = 40
dx = 0.05
[time]
dt = 0.01
steps = 40
[terrain]
slope = { base = -0.3, grad = [0.25, 0.0] }
[water]
level = 0.0
[[water.bump]]
x = 0.8
y = 1.0
radius = 0.15
height = 0.03
[output]
every = 20
[[output.probe]]
name = "gauge"
x = 1.0
y = 1.0
"""

# |h_gpu − h_cpu| after n steps of waves of size `scale` (src/compare.rs): 4 ulp per step.
def gpu_tolerance(steps, scale):
    return 4.0 * steps * np.finfo(np.float32).eps * scale


def pool(**backend):
    return shoal.Simulation(shoal.Scene.from_toml(POOL), **backend)


def test_the_three_ways_to_a_scene_agree():
    from_text = shoal.Scene.from_toml(POOL)
    path = SCENES / "beach.toml"
    from_file = shoal.Scene.from_file(path)
    assert from_file.name == "waves lapping on a sloped beach"
    assert (from_file.nx, from_file.ny) == (384, 192)
    as_dict = {
        "name": "python pool",
        "grid": {"nx": np.int64(48), "ny": 40, "dx": 0.05},
        "time": {"dt": 0.01, "steps": 40},
        "terrain": {"slope": {"base": -0.3, "grad": np.array([0.25, 0.0])}},
        "water": {"level": 0.0, "bump": [{"x": 0.8, "y": 1.0, "radius": 0.15, "height": 0.03}]},
        "output": {"every": 20, "probe": [{"name": "gauge", "x": 1.0, "y": 1.0}]},
        "rain": None,
    }
    from_dict = shoal.Scene.from_dict(as_dict)
    assert from_dict.to_toml() == from_text.to_toml()
    assert (from_dict.nx, from_dict.ny, from_dict.dx, from_dict.dt, from_dict.steps) == (48, 40, 0.05, 0.01, 40)
    # A Simulation takes a path too.
    assert shoal.Simulation(path, backend="cpu").scene.name == from_file.name


def test_bad_scenes_raise_scene_errors_naming_key_and_line():
    with pytest.raises(shoal.SceneError) as e:
        shoal.Scene.from_toml(POOL.replace("nx = 48", 'nx = "wide"'))
    assert "grid.nx" in str(e.value) and e.value.line == 4
    with pytest.raises(shoal.SceneError) as e:
        shoal.Scene.from_toml(POOL.replace("dt = 0.01", "dt = -1.0"))
    assert "time.dt" in str(e.value)
    with pytest.raises(shoal.SceneError) as e:
        shoal.Scene.from_dict({"grid": {"nx": 8, "ny": 8, "dx": 0.1}, "time": {"dt": 0.01, "steps": 5}, "spin": 3})
    assert "spin" in str(e.value)
    with pytest.raises(TypeError):
        shoal.Scene.from_dict({"grid": {"nx": object()}})
    with pytest.raises(FileNotFoundError, match="no_such_scene.toml"):
        shoal.Scene.from_file(SCENES / "no_such_scene.toml")
    # The same message as the command line's.
    assert isinstance(e.value, shoal.ShoalError)


def test_fields_come_back_as_float32_grids():
    sim = pool(backend="cpu")
    sim.step(25)
    assert sim.step_index == 25 and sim.time == pytest.approx(0.25)
    h, d, b = sim.surface(), sim.depth(), sim.ground()
    for a in (h, d, b):
        assert a.dtype == np.float32 and a.shape == (40, 48)
    # Depth is h − b in f64 rounded once; from the f32 fields, within an f32 rounding of 0.3 m.
    np.testing.assert_allclose(d, np.maximum(h.astype(np.float64) - b, 0.0), rtol=0, atol=1e-7)
    # Row j is y = (j + ½)·dx: the slope rises along x.
    assert b[0, 0] == pytest.approx(-0.3 + 0.25 * 0.025, abs=1e-6)
    assert b[0, -1] > b[0, 0] and b[-1, 0] == b[0, 0]
    stats = sim.stats()
    assert stats["step"] == 25 and stats["regions"] is None
    # The correction holds the water: f32 depths summed in f64, 1e-6 of the volume.
    assert abs(stats["volume"] - stats["target_volume"]) <= 1e-6 * stats["volume"]
    assert stats["volume"] == pytest.approx(float(d.astype(np.float64).sum()) * 0.05**2, rel=1e-6)


def test_the_shallow_water_velocity_comes_back_and_matches_the_files(tmp_path):
    # A dam break on the shallow-water model: sim.velocity() is (u, v), float32 [ny, nx], 0 where
    # dry, and run(velocity=True) writes the same u/v files the command line's --velocity does.
    h = np.where(np.arange(60)[None, :] < 20, 0.5, 0.0).repeat(4, axis=0)
    np.save(tmp_path / "h.npy", h)
    text = textwrap.dedent("""
        [grid]
        nx = 60
        ny = 4
        dx = 0.1
        [time]
        dt = 0.01
        steps = 30
        [physics]
        model = "shallow-water"
        manning = 0.01
        [water]
        npy = "h.npy"
        [output]
        every = 30
    """)
    (tmp_path / "dam.toml").write_text(text)
    scene = shoal.Scene.from_file(str(tmp_path / "dam.toml"))
    sim = shoal.Simulation(scene, backend="cpu")
    sim.step(30)
    u, v = sim.velocity()
    assert u.dtype == np.float32 and u.shape == (4, 60)
    d = sim.depth()
    assert np.all(u[d == 0] == 0) and np.all(v == 0)
    # The front runs east, at most 2·sqrt(g·h0) (Ritter's).
    assert u.max() > 0.5 and u.max() < 2 * np.sqrt(9.81 * 0.5) * 1.05
    shoal.run(scene, str(tmp_path / "out"), backend="cpu", velocity=True)
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "u_000030.npy"), u)
    assert pool(backend="cpu").velocity() is None


def test_coordinates_put_the_fields_the_right_way_up():
    # x and y are the cell centres (row j of a field is y = (j + ½)·dx), extent the domain's
    # edges for imshow(origin="lower"): the start's bump, at (0.8, 1.0) m, peaks there.
    sim = pool(backend="cpu")
    assert sim.x.shape == (48,) and sim.y.shape == (40,)
    np.testing.assert_allclose(sim.x[[0, -1]], [0.025, 2.375])
    np.testing.assert_allclose(sim.y[[0, -1]], [0.025, 1.975])
    assert sim.extent == pytest.approx((0.0, 2.4, 0.0, 2.0))
    wet_surface = np.where(sim.depth() > 0, sim.surface(), -np.inf)
    j, i = np.unravel_index(np.argmax(wet_surface), wet_surface.shape)
    # Within half a cell (the bump's centre lies on a cell edge).
    assert abs(sim.x[i] - 0.8) <= 0.0251 and abs(sim.y[j] - 1.0) <= 0.0251


@pytest.mark.parametrize("model", ["height-field", "pipes", "shallow-water", "navier-stokes"])
def test_a_query_reads_the_surface_and_depth_at_points(model):
    # On cell centres a query is that cell's surface (f32 about the level: 1e-6 m) and depth;
    # on the dry beach (x > 1.2 m) depth 0 and the ground's height; normals of unit length.
    text = POOL + f'[physics]\nmodel = "{model}"\n'
    sim = shoal.Simulation(shoal.Scene.from_toml(text), backend="cpu")
    sim.step(20)
    h, b = sim.surface(), sim.ground()
    cells = [(20, 10), (5, 30), (30, 16)]
    points = [(sim.x[i], sim.y[j]) for j, i in cells]
    q = sim.query(points)
    assert q["height"].shape == (3,) and q["normal"].shape == (3, 3)
    np.testing.assert_allclose(q["height"], [h[j, i] for j, i in cells], atol=1e-6)
    np.testing.assert_allclose(q["depth"], [h[j, i] - b[j, i] for j, i in cells], atol=1e-6)
    assert q["depth"][1] == 0.0
    np.testing.assert_allclose(np.linalg.norm(q["normal"], axis=1), 1.0, atol=1e-6)
    # One pair is one point; other shapes and non-finite points are errors naming the call.
    assert sim.query(points[0])["height"][0] == q["height"][0]
    with pytest.raises(ValueError, match="finite"):
        sim.query([(np.nan, 1.0)])
    with pytest.raises(ValueError, match=r"shape \[n, 2\]"):
        sim.query([(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)])


@pytest.mark.parametrize("model", ["height-field", "pipes", "shallow-water", "navier-stokes"])
def test_the_flood_maps_are_the_files_the_run_writes(tmp_path, model):
    text = POOL.replace("every = 20\n", "every = 20\nsummary = true\n")
    scene = shoal.Scene.from_toml(text + f'[physics]\nmodel = "{model}"\n')
    sim = shoal.Simulation(scene, backend="cpu")
    start = sim.depth()
    sim.step(40)
    maps = sim.summary()
    shoal.run(scene, str(tmp_path / "out"), backend="cpu")
    names = ["max_depth", "max_surface", "first_wet", "time_wet"]
    if model == "shallow-water":
        names += ["max_speed", "max_hazard"]
    assert sorted(maps) == sorted(names)
    for name in names:
        np.testing.assert_array_equal(maps[name], np.load(tmp_path / "out" / f"{name}.npy"), err_msg=name)
    # The deepest water each cell had includes the start's, and the highest surface stands on
    # the ground.
    assert np.all(maps["max_depth"] >= start - 1e-6)
    assert np.all(maps["max_surface"] >= sim.ground() - 1e-6)
    assert pool(backend="cpu").summary() is None


def test_the_spray_and_the_layer_come_back_as_arrays():
    # The pipes' spray: a particle per row, the water they carry the stats' particle_volume.
    sim = shoal.Simulation(str(SCENES / "waterfall.toml"), backend="cpu")
    text = sim.scene.to_toml() + "[spray]\n"
    sim = shoal.Simulation(shoal.Scene.from_toml(text, base_dir=str(SCENES)), backend="cpu")
    sim.step(60)
    p = sim.particles()
    stats = sim.stats()
    assert p.dtype.names == ("x", "y", "z", "vx", "vy", "vz", "volume")
    assert len(p) == stats["particles"] and len(p) > 0
    assert p["volume"].sum() == pytest.approx(stats["particle_volume"], rel=1e-6)
    assert len(sim.foam()) == 0 and sim.layer() is None
    # The Navier-Stokes layer's grid [nz, ny, nx] (jet_tank's 2× coarser than the scene's) with
    # its cells' centres; at the start the water stands at rest, so the pressure is
    # hydrostatic: ρ·g·(level − z) in the wet layers.
    tank = shoal.Simulation(str(SCENES / "jet_tank.toml"), backend="cpu")
    layer = tank.layer()
    shape = (len(layer["z"]), len(layer["y"]), len(layer["x"]))
    assert shape == (40, 1, 30) and layer["u"].shape == shape and layer["pressure"].shape == shape
    assert np.all(np.diff(layer["z"]) > 0) and np.all(np.diff(layer["x"]) > 0)
    np.testing.assert_allclose(layer["x"][[0, -1]], tank.x[[0, -1]] + [0.5, -0.5] * np.diff(tank.x[:2]))
    level = np.median(tank.surface()[tank.depth() > 0])
    wet = layer["z"] < level - 0.05
    want = 1000.0 * 9.81 * (level - layer["z"][wet])
    got = layer["pressure"][wet, 0, 15]
    np.testing.assert_allclose(got, want, rtol=0.05)
    assert len(pool(backend="cpu").particles()) == 0


def test_a_new_ground_round_trips_and_carries_the_water():
    scene = shoal.Scene.from_dict(
        {"grid": {"nx": 24, "ny": 20, "dx": 0.1}, "time": {"dt": 0.01, "steps": 10},
         "terrain": {"flat": -0.5}, "water": {"level": 0.0}}
    )
    sim = shoal.Simulation(scene, backend="cpu")
    sim.step(5)
    v0 = sim.stats()["volume"]
    lowered = np.full((20, 24), -0.6)  # float64 in, float32 out
    sim.set_ground(lowered)
    np.testing.assert_array_equal(sim.ground(), lowered.astype(np.float32))
    sim.step(100)
    # Each column kept its 0.5 m: the pool is 10 cm lower and still at rest (1e-6 m: f32).
    np.testing.assert_allclose(sim.surface(), -0.1, atol=1e-6)
    assert sim.stats()["volume"] == pytest.approx(v0, rel=1e-6)
    with pytest.raises(ValueError, match=r"shape \(20, 23\) for a grid of \(ny, nx\) = \(20, 24\)"):
        sim.set_ground(np.zeros((20, 23)))


@pytest.mark.parametrize("model", ["height-field", "pipes"])
def test_a_splash_adds_its_water_and_a_brush_adds_none(model):
    scene = shoal.Scene.from_dict(
        {"grid": {"nx": 64, "ny": 64, "dx": 0.05}, "time": {"dt": 0.01, "steps": 10},
         "physics": {"model": model}, "terrain": {"flat": -0.4}, "water": {"level": 0.0}}
    )
    sim = shoal.Simulation(scene, backend="cpu")

    def volume():
        # The water, the pipes' spray in flight included.
        stats = sim.stats()
        return stats["volume"] + (stats["particle_volume"] or 0.0)

    v0 = volume()
    # ∫ h·(1 − r²/R²)² over the disc = π R² h / 3; R = 10 cells: the cell sum is within 1 %.
    radius, height = 0.5, 0.02
    sim.disturb(1.6, 1.6, radius, height)
    added = volume() - v0
    assert added == pytest.approx(np.pi * radius**2 * height / 3, rel=0.01)
    assert sim.stats()["target_volume"] == pytest.approx(v0 + added, rel=1e-7)
    v1 = volume()
    sim.brush(0.825, 0.825, 0.3, 0.1)  # on a cell centre: the peak lands whole
    sim.brush(2.4, 2.4, 0.3, -0.1)
    sim.step(50)
    # The brushes move ground and water together: the volume holds (f32 depths, 1e-6; the
    # pipes' whole units exactly).
    assert volume() == pytest.approx(v1, rel=1e-6)
    assert sim.ground().max() == pytest.approx(-0.3, abs=1e-6)
    with pytest.raises(ValueError, match="positive radius"):
        sim.disturb(1.0, 1.0, 0.0, 0.1)
    with pytest.raises(ValueError):
        sim.brush(float("nan"), 1.0, 0.2, 0.1)
    # Outside the 3.2 × 3.2 m domain: raised at once, as the scene refuses probes there.
    with pytest.raises(ValueError, match="outside the domain"):
        sim.disturb(5.0, 1.0, 0.2, 0.1)
    with pytest.raises(ValueError, match="outside the domain"):
        sim.brush(1.0, -0.5, 0.2, 0.1)


def test_an_edit_that_removes_the_last_dry_land_is_kept():
    # A beach (dry land at the east), then every cell lowered under the water: the scene stops
    # keeping a shoreline's face memory, and the edit must still land (issue 57: it raised
    # "its face memory holds … values where this scene needs 0" and stepping went on without it).
    sim = pool(backend="cpu")
    sim.step(10)
    v0 = sim.stats()["volume"]
    drowned = np.minimum(sim.ground(), -0.5)
    sim.set_ground(drowned)
    np.testing.assert_array_equal(sim.ground(), drowned.astype(np.float32))
    sim.brush(1.2, 1.0, 0.3, -0.2)
    sim.step(10)
    assert sim.ground().min() < drowned.min() - 0.1
    assert sim.stats()["volume"] == pytest.approx(v0, rel=1e-6)


def test_scenes_and_errors_pickle_for_worker_processes():
    import pickle

    scene = shoal.Scene.from_toml(POOL)
    again = pickle.loads(pickle.dumps(scene))
    assert (again.nx, again.ny, again.dx, again.name) == (scene.nx, scene.ny, scene.dx, scene.name)
    a, b = shoal.Simulation(scene, backend="cpu"), shoal.Simulation(again, backend="cpu")
    a.step(5)
    b.step(5)
    np.testing.assert_array_equal(a.surface(), b.surface())
    try:
        shoal.Scene.from_toml(POOL.replace("dx = 0.05", "dx = -1.0"))
    except shoal.SceneError as e:
        error = e
    assert shoal.SceneError.__module__ == "shoal" and shoal.ShoalError.__module__ == "shoal"
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is shoal.SceneError and str(back) == str(error)
    assert (back.file, back.line) == (error.file, error.line)


def test_gpu_and_cpu_agree_within_the_stated_tolerance():
    steps = 40
    gpu, cpu = pool(backend="gpu"), pool(backend="cpu")
    for sim in (gpu, cpu):
        sim.step(steps)
    diff = np.abs(gpu.surface().astype(np.float64) - cpu.surface()).max()
    assert diff <= gpu_tolerance(steps, 0.03), f"{diff:.3e} on {gpu.backend}"
    assert gpu.stats()["volume"] == pytest.approx(cpu.stats()["volume"], rel=1e-6)


def shoal_run_files(scene_path, out, steps):
    """The command line's run of a scene (the built binary when there is one, else shoal.run,
    which is the same code the command line calls)."""
    binary = REPO / "target" / "release" / "shoal"
    if binary.exists():
        subprocess.run(
            [binary, "run", scene_path, "--backend", "cpu", "--steps", str(steps), "--out", out, "-q"],
            check=True,
        )
    else:
        shoal.run(scene_path, out, steps=steps, backend="cpu")


def test_the_surface_equals_the_command_lines_snapshot(tmp_path):
    scene_path = tmp_path / "pool.toml"
    scene_path.write_text(POOL)
    shoal_run_files(scene_path, tmp_path / "out", 40)
    sim = shoal.Simulation(scene_path, backend="cpu")
    sim.step(40)
    np.testing.assert_array_equal(sim.surface(), np.load(tmp_path / "out" / "h_000040.npy"))
    # And the gauge, every step from 0, as probes.csv holds it.
    table = np.genfromtxt(tmp_path / "out" / "probes.csv", delimiter=",", names=True)
    probes = sim.probes()
    assert probes.dtype.names == ("step", "time", "gauge")
    np.testing.assert_array_equal(probes["step"], table["step"])
    np.testing.assert_allclose(probes["gauge"], table["gauge"], rtol=0, atol=1e-12)


def test_run_writes_what_the_command_line_writes(tmp_path):
    summary = shoal.run(SCENES / "standing_wave.toml", tmp_path / "run", steps=30, backend="cpu", png=True, depth=True)
    assert summary["steps"] == 30 and abs(summary["volume_error"]) < 1e-6
    names = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert "stats.csv" in names and "scene.toml" in names and "frame_000000.png" in names
    depth = np.load(tmp_path / "run" / "d_000030.npy")
    assert depth.dtype == np.float32 and depth.min() >= 0.0 and depth.max() > 0.0
    with pytest.raises(shoal.ShoalError, match="is not empty"):
        shoal.run(SCENES / "standing_wave.toml", tmp_path / "run", steps=30, backend="cpu")


def test_a_saved_simulation_continues_bit_for_bit(tmp_path):
    straight = pool(backend="cpu")
    straight.step(40)
    sim = pool(backend="cpu")
    sim.step(15)
    sim.disturb(1.2, 0.8, 0.2, 0.01)
    sim.step(5)
    sim.save(tmp_path / "state.bin")
    loaded = shoal.Simulation.load(tmp_path / "state.bin", backend="cpu")
    assert loaded.step_index == 20
    sim.step(20)
    loaded.step(20)
    np.testing.assert_array_equal(loaded.surface(), sim.surface())
    np.testing.assert_array_equal(loaded.ground(), sim.ground())
    with pytest.raises(FileNotFoundError):
        shoal.Simulation.load(tmp_path / "missing.bin")
    (tmp_path / "torn.bin").write_bytes((tmp_path / "state.bin").read_bytes()[:100])
    with pytest.raises(shoal.ShoalError, match="truncated|checksum"):
        shoal.Simulation.load(tmp_path / "torn.bin")


def test_bodies_come_back_as_bodies_csv_columns():
    text = (SCENES / "cube_drop.toml").read_text().replace("nx = 120\nny = 120\ndx = 0.02", "nx = 60\nny = 60\ndx = 0.04")
    sim = shoal.Simulation(shoal.Scene.from_toml(text, base_dir=SCENES), backend="cpu")
    sim.step(60)
    bodies = sim.bodies()
    assert bodies.dtype.names == (
        "step", "time", "body", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "waterline", "displaced",
    )
    assert bodies.shape == (1,) and bodies["step"][0] == 60
    # The cube (density 600) has fallen into the water and displaces some.
    assert bodies["z"][0] < 0.4 and bodies["displaced"][0] > 0.0
    assert pool(backend="cpu").bodies().shape == (0,)


def test_errors_are_exceptions_not_crashes():
    with pytest.raises(ValueError, match="backend"):
        pool(backend="tpu")
    with pytest.raises(TypeError):
        shoal.Simulation(42)
    sim = pool(backend="cpu")
    with pytest.raises(OverflowError):
        sim.step(-1)
    too_big = POOL.replace("nx = 48\nny = 40", "nx = 200000\nny = 200000")
    with pytest.raises(shoal.ShoalError):
        shoal.Simulation(shoal.Scene.from_toml(too_big), backend="cpu")


def test_stepping_releases_the_gil():
    sim = shoal.Simulation(SCENES / "beach.toml", backend="cpu")
    worker = threading.Thread(target=sim.step, args=(150,))
    counted = 0
    worker.start()
    while worker.is_alive():
        counted += 1
        time.sleep(0)
    worker.join()
    assert sim.step_index == 150
    # With the GIL held for the whole call this thread would not have run at all.
    assert counted > 100, counted


def test_ctrl_c_raises_keyboard_interrupt_between_chunks():
    code = textwrap.dedent(
        f"""
        import os, signal, threading, shoal
        # A process started in the background by a non-interactive shell (as CI runs) inherits
        # SIGINT ignored, and Python then keeps it ignored: take the default handler back.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sim = shoal.Simulation({str(SCENES / "beach.toml")!r}, backend="cpu")
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            sim.step(10**9)
        except KeyboardInterrupt:
            print("interrupted at", sim.step_index, sim.step_index % 256 == 0)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[:2] == ["interrupted", "at"] and int(words[2]) > 0 and words[3] == "True", done.stdout


def test_the_example_script_draws_its_figure(tmp_path):
    if "CI" not in os.environ:  # CI installs matplotlib: there a missing one fails the test
        pytest.importorskip("matplotlib")
    script = REPO / "python" / "examples" / "beach_gauge.py"
    out = tmp_path / "figure.png"
    subprocess.run([sys.executable, script, "--steps", "60", "--out", out], check=True, timeout=300)
    assert out.stat().st_size > 10_000


def test_the_netcdf_file_opens_in_xarray_with_the_npy_values_and_the_dems_crs(tmp_path):
    """run(netcdf=True) as a flood modeller reads it: xarray opens output.nc (CF-1.8, dimensions
    time, y, x), each record's h, depth and velocity equal the snapshot files, the flood maps
    equal theirs, and the grid mapping is the DEM's (the shipped bay.tif: UTM zone 33N)."""
    xr = pytest.importorskip("xarray")
    out = tmp_path / "surge"
    shoal.run(SCENES / "storm_surge_sw.toml", out, steps=40, backend="cpu", netcdf=True, depth=True, velocity=True)
    with xr.open_dataset(out / "output.nc") as ds:
        assert ds.attrs["Conventions"] == "CF-1.8"
        assert ds["h"].dims == ("time", "y", "x")
        steps = [int(s) for s in ds["step"].values]
        assert steps[0] == 0 and steps[-1] == 40
        for k, step in enumerate(steps):
            for var, prefix in (("h", "h"), ("depth", "d"), ("u", "u"), ("v", "v")):
                np.testing.assert_array_equal(ds[var].values[k], np.load(out / f"{prefix}_{step:06d}.npy"), err_msg=f"{var} {step}")
        np.testing.assert_array_equal(ds["max_depth"].values, np.load(out / "max_depth.npy"))
        assert "UTM zone 33N" in ds["crs"].attrs["crs_wkt"]
        assert ds["crs"].attrs["grid_mapping_name"] == "transverse_mercator"
        assert ds["h"].attrs["grid_mapping"] == "crs"
        # The time axis is the snapshots' simulated seconds.
        dt = shoal.Scene.from_file(SCENES / "storm_surge_sw.toml").dt
        np.testing.assert_allclose(ds["time"].values, np.array(steps) * dt)


def test_the_exr_snapshots_read_as_heights_in_the_openexr_library(tmp_path):
    """--exr as a DCC tool reads it through the OpenEXR library (what Blender builds on): R, G and
    B hold the surface (Blender loads RGB and ignores other channels), h, d and b stay by name, and
    the header carries the cell size, time and step."""
    OpenEXR = pytest.importorskip("OpenEXR")
    shoal.run(SCENES / "standing_wave.toml", tmp_path / "run", steps=4, backend="cpu", exr=True)
    surface = np.load(tmp_path / "run" / "h_000004.npy")
    # separate_channels: by default the library joins R, G and B into one "RGB" image, as a DCC
    # tool sees them.
    with OpenEXR.File(str(tmp_path / "run" / "h_000004.exr"), separate_channels=True) as image:
        header = image.header()
        channels = image.channels()
        # The first row of an image is the north edge: the grid's last row.
        north_up = surface[::-1].astype(np.float32)
        for name in ("R", "G", "B", "h"):
            np.testing.assert_array_equal(channels[name].pixels, north_up, err_msg=name)
        depth, ground = channels["d"].pixels, channels["b"].pixels
        np.testing.assert_array_equal(depth, np.maximum(north_up - ground, 0))
        scene = shoal.Scene.from_file(SCENES / "standing_wave.toml")
        value = lambda name: float(np.ravel(header[name])[0])  # noqa: E731 (doubles come as arrays)
        assert value("shoal_dx_m") == pytest.approx(scene.dx)
        assert value("shoal_step") == 4
        assert value("shoal_time_s") == pytest.approx(4 * scene.dt)
