"""The opt-in start-up hook of the `specula` package (`specula_autoenable.pth`).

Python runs the .pth file's line at start-up; it imports this module only when SPECULA_COLLISION
is set. Then, as soon as the program imports `mujoco`, `specula.enable()` runs with the modes of
SPECULA_COLLISION (rust, diff, c) and SPECULA_SPECULATIVE (compat, robust; unset: each model
decides), so an unmodified script gets specula's collision. Nothing happens under an LD_PRELOAD
of libspecula.so (the preloaded drop-in reads the same variables itself). A problem is one line
on stderr, never an exception in the program.
"""

import importlib.abc
import importlib.util
import os
import sys


def _enable():
    collision = os.environ.get("SPECULA_COLLISION", "")
    speculative = os.environ.get("SPECULA_SPECULATIVE") or None
    try:
        import specula

        specula.enable(collision, speculative)
    except Exception as e:  # noqa: BLE001 - the program must run on, with MuJoCo's collision
        print(f"specula: SPECULA_COLLISION={collision!r}: not enabled: {e}", file=sys.stderr)


class _Loader(importlib.abc.Loader):
    """mujoco's own loader, then specula.enable()."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _enable()


class _Finder(importlib.abc.MetaPathFinder):
    """Finds `mujoco` once, through the other finders, and wraps its loader."""

    def find_spec(self, name, path=None, target=None):
        if name != "mujoco":
            return None
        sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install():
    if "libspecula" in os.environ.get("LD_PRELOAD", ""):
        return
    if "mujoco" in sys.modules:
        _enable()
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
