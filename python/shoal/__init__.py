"""Shoal from Python: GPU height-field water with NumPy arrays in and out.

A thin layer over Shoal's Rust library (the same engine, scenes and outputs as the ``shoal``
command line)::

    import shoal

    scene = shoal.Scene.from_file("scenes/beach.toml")
    sim = shoal.Simulation(scene, backend="auto")   # "gpu", "cpu" or "reference"
    sim.step(100)
    h = sim.surface()          # float32 [ny, nx], metres
    print(sim.stats()["volume"])

Errors are ``shoal.SceneError`` (a scene that breaks the contract, with ``file`` and ``line``)
and ``shoal.ShoalError`` (everything else). Stepping releases the GIL; a Ctrl-C raises
``KeyboardInterrupt`` at the next chunk boundary.
"""

import os as _os
import tempfile as _tempfile


def _private_runtime_dir() -> None:
    # Mesa's Vulkan driver prints "error: XDG_RUNTIME_DIR is invalid or not set" on every device
    # it opens where the variable is missing (containers, cron, CI). As the command line does,
    # take a private folder of the user's when there is none, before any device is opened.
    if _os.path.isdir(_os.environ.get("XDG_RUNTIME_DIR", "")):
        return
    folder = _os.path.join(_tempfile.gettempdir(), f"shoal-runtime-{_os.getuid() if hasattr(_os, 'getuid') else 'user'}")
    try:
        _os.makedirs(folder, mode=0o700, exist_ok=True)
        _os.environ["XDG_RUNTIME_DIR"] = folder
    except OSError:
        pass


_private_runtime_dir()

from ._shoal import (  # noqa: E402
    Scene,
    SceneError,
    ShoalError,
    Simulation,
    __version__,
    backend,
    run,
)

__all__ = [
    "Scene",
    "SceneError",
    "ShoalError",
    "Simulation",
    "__version__",
    "backend",
    "run",
]
