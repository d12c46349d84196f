"""specula's collision stage inside MuJoCo 4.0.0's Python package.

    import mujoco, specula
    specula.enable()                       # MuJoCo's collision calls now go to specula's Rust stage
    specula.enable(speculative="robust")   # ... with specula's tunnel-proof speculative contacts
    specula.enable(collision="diff")       # MuJoCo's contacts, compared with specula's on every call
    print(specula.stats())                 # the drop-in report: calls, rust_calls, mismatches, ...
    specula.disable()                      # MuJoCo's own collision again

    with specula.enabled(speculative="robust"):
        ...

How: libmujoco calls its own ``mj_collision`` through one entry of its global offset table.
``enable()`` points that entry, in every loaded copy of libmujoco.so.4.0.0, at specula's entry
point, and ``disable()`` puts MuJoCo's back (``src/capi/patch.rs``). Every collision MuJoCo makes
then reaches specula: ``mj_step``, ``mj_forward``, RK4's inner stages, ``mujoco.rollout``'s
threads, the compiler's. A direct call of ``mujoco.mj_collision(m, d)`` goes through the binding's
own pointer, so ``enable()`` also replaces that attribute of the ``mujoco`` module (and
``disable()`` restores it); a reference taken before, ``from mujoco import mj_collision``, still
calls MuJoCo's.

No environment variable and no LD_PRELOAD are needed. The environment variables of the C drop-in
are still read once, at the first call: ``SPECULA_REPORT=<path>`` writes the report at exit, and
``SPECULA_COLLISION`` / ``SPECULA_SPECULATIVE`` choose the modes until ``enable()`` chooses.
"""

import contextlib
import json
import math
import threading

MUJOCO_VERSION = "4.0.0"

try:
    import mujoco
except ImportError as _e:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"specula needs the mujoco package {MUJOCO_VERSION} (pip install mujoco=={MUJOCO_VERSION}): {_e}"
    ) from _e

if getattr(mujoco, "__version__", None) != MUJOCO_VERSION:
    raise ImportError(
        f"specula works with MuJoCo {MUJOCO_VERSION} only, and this process imported mujoco "
        f"{getattr(mujoco, '__version__', '(unknown version)')} from {getattr(mujoco, '__file__', '?')}; "
        f"install it with: pip install mujoco=={MUJOCO_VERSION}"
    )

# After `import mujoco`: the native module is linked to libmujoco.so.4.0.0 by soname and binds to
# the copy mujoco loaded.
from . import _native  # noqa: E402

__version__ = "0.1.0"
__all__ = [
    "enable", "disable", "enabled", "is_enabled", "stats", "check", "diff", "sweep", "load",
    "SpeculaError", "MJCFError", "MuJoCoError", "MUJOCO_VERSION",
]

SpeculaError = _native.SpeculaError
"""Raised when MuJoCo's collision calls cannot be redirected or restored: libmujoco not loaded,
no ``mj_collision`` slot, or a slot that something else (``LD_PRELOAD=libspecula.so``, another
tool) already redirected."""

MJCFError = _native.MJCFError
"""Raised (a ValueError) when specula's MJCF compiler rejects a file: the message names the file,
line and column, and what was expected."""

MuJoCoError = _native.MuJoCoError
"""Raised (a RuntimeError) when MuJoCo C rejects a file or fails while it runs; the interpreter
always survives it."""

COLLISION_MODES = ("rust", "diff", "c")
SPECULATIVE_MODES = ("compat", "robust", None)

_lock = threading.RLock()
# The binding `mujoco.mj_collision` as it was before enable() replaced it (None: not replaced).
_mujoco_mj_collision = None


def _mj_collision(m, d):
    """mj_collision(m: mujoco.MjModel, d: mujoco.MjData) -> None

    Run collision detection: ``mujoco.mj_collision`` as replaced by ``specula.enable()``, which
    runs specula's collision in the enabled mode (``specula.stats()`` counts the call)."""
    if not isinstance(m, mujoco.MjModel) or not isinstance(d, mujoco.MjData):
        # MuJoCo's binding raises its own TypeError for anything else
        return _mujoco_mj_collision(m, d)
    # `m` and `d` stay referenced (and alive) until the call returns
    _native.collision(m._address, d._address)


def enable(collision="rust", speculative=None):
    """Sends every collision call of MuJoCo to specula.

    collision: "rust" (specula's Rust stage computes the contacts; what it cannot serve goes to
    MuJoCo, counted in ``stats()["fallback_calls"]``), "diff" (MuJoCo computes the contacts, and
    specula's are compared with them on every call: ``stats()["mismatches"]``) or "c" (MuJoCo's
    own collision through specula's hook: counted only).

    speculative: "compat" (speculative contacts as MuJoCo 4.0.0 computes them, for models that
    enable them), "robust" (specula's mode in which nothing tunnels, in rust mode), or None
    (each model decides: robust if it has ``<numeric name="specula_robust" data="1"/>``).

    Idempotent: calling it again only changes the modes. Raises SpeculaError when the calls
    cannot be redirected (then nothing is changed), ValueError for an unknown mode.
    """
    global _mujoco_mj_collision
    if collision not in COLLISION_MODES:
        raise ValueError(f"collision={collision!r} is not one of {COLLISION_MODES}")
    if speculative not in SPECULATIVE_MODES:
        raise ValueError(f"speculative={speculative!r} is not one of {SPECULATIVE_MODES}")
    with _lock:
        _native.enable(collision, speculative)
        if _mujoco_mj_collision is None and mujoco.mj_collision is not _mj_collision:
            _mujoco_mj_collision = mujoco.mj_collision
            mujoco.mj_collision = _mj_collision


def disable():
    """Gives MuJoCo its own collision back (idempotent): counted calls stop."""
    global _mujoco_mj_collision
    with _lock:
        _native.disable()
        if _mujoco_mj_collision is not None:
            if mujoco.mj_collision is _mj_collision:
                mujoco.mj_collision = _mujoco_mj_collision
            _mujoco_mj_collision = None


def is_enabled():
    """Whether MuJoCo's collision calls go to specula."""
    return _native.state()[0]


def state():
    """(enabled, collision mode, speculative mode or None)."""
    return _native.state()


@contextlib.contextmanager
def enabled(collision="rust", speculative=None):
    """``with specula.enabled(...):`` enables specula for the block, then puts back what was
    before (disabled, or enabled with its earlier modes)."""
    with _lock:
        before = _native.state()
        enable(collision, speculative)
    try:
        yield
    finally:
        with _lock:
            was_enabled, mode, spec = before
            if was_enabled:
                enable(mode, spec)
            else:
                disable()


def stats():
    """The drop-in report, as a dict: counters since the module was loaded (``calls``,
    ``rust_calls``, ``c_calls``, ``fallback_calls``, ``fallbacks``, ``fallback_reasons``,
    ``contacts``, ``diff_calls``, ``mismatches``, ``mismatch_examples``, ``seconds``, ...), the
    modes, and ``enabled``."""
    report = json.loads(_native.stats_json())
    report["enabled"] = is_enabled()
    return report


def slots():
    """Every loaded copy of libmujoco.so.4.0.0 and its mj_collision slot, for diagnostics: a list
    of dicts with ``object``, ``slot``, ``value``, ``mujoco`` (MuJoCo's own mj_collision) and
    ``specula`` (specula's entry point)."""
    keys = ("object", "slot", "value", "mujoco", "specula")
    return [dict(zip(keys, s)) for s in _native.slots()]


def check(xml_path):
    """``specula check --json``: compiles the MJCF file with MuJoCo C and with specula's compiler
    and compares every field both hold. Returns the CLI's JSON object as a dict: ``verdict``
    ("match" or "differ"), ``fields``, ``values``, ``mismatches`` (``field``, ``index``, ``c``,
    ``rust``) and, when a compiler rejects the file, ``c_error`` / ``rust_error``."""
    return json.loads(_native.check_json(str(xml_path)))


def diff(xml_path, steps=500, key=None, speculative=None):
    """``specula diff --json``: ``steps`` steps from keyframe ``key`` (name or index; None:
    qpos0), comparing specula's contacts with MuJoCo's on every collision call and the two
    routes' trajectories. ``speculative``: "off", "compat", "robust" or None (the scene's own).
    Returns the CLI's JSON object as a dict (``verdict``, ``contacts``, ``unmatched``,
    ``max_err``, ``pairs``, ...). Raises MJCFError or MuJoCoError when the file does not load."""
    if speculative not in (None, "off", "compat", "robust"):
        raise ValueError(f"speculative={speculative!r} is not one of 'off', 'compat', 'robust', None")
    key = None if key is None else str(key)
    # the diff redirects MuJoCo's collision slot while it runs: no enable() or disable() from
    # another thread may change it meanwhile
    with _lock:
        return json.loads(_native.diff_json(str(xml_path), int(steps), key, speculative))


def _csv(value):
    """A list option as the CLI writes it: a string as it is, numbers and names joined by commas."""
    if value is None or isinstance(value, str):
        return value
    return ",".join(str(v) for v in value)


def sweep(scene=None, *, preset=None, bodies=(), speeds=None, direction=None, toward=None,
          offsets=None, dense=False, gap=None, tilt=None, jitter=None, seed=None, draws=None,
          timesteps=None, duration=None, key=None, routes=None, modes=None, refine=False,
          jobs=None):
    """``specula sweep --format json``: the tunneling matrix of a preset (``preset="quick"``,
    ``"a1"``, ``"b"``, ...) or of free bodies of your own scene (``scene=path, bodies=["ball"]``),
    with the options of the CLI under the same names (``bodies`` is ``--body``, ``routes`` is
    ``--route``). List options take a list or the CLI's text: ``speeds=[2, 5, 10]`` or
    ``"1:40:0.5"``, ``timesteps=["1.25ms", 0.000625]``, ``direction=(0, 0, -1)``,
    ``modes=["off", "robust"]``, ``routes=["c", "rust"]``. ``jobs``: worker threads (None: one
    per core). Returns the CLI's JSON object as a dict: ``sweep`` (the definition), ``hash``,
    ``runs`` (one dict per run: ``outcome`` PASS, LAND, BOUNCE or STUCK, ``speed``, ``mode``,
    ``route``, ...). Raises ValueError for a bad option, MJCFError when specula's compiler
    rejects the scene, MuJoCoError when MuJoCo does or a body cannot be placed."""
    if isinstance(bodies, str):
        bodies = [bodies]
    if isinstance(routes, str):
        routes = routes.split(",")
    options = {
        "scene": None if scene is None else str(scene),
        "preset": preset,
        "bodies": [str(b) for b in bodies],
        "speeds": _csv(speeds),
        "direction": _csv(direction),
        "toward": toward,
        "offsets": offsets,
        "dense": bool(dense),
        "gap": gap,
        "tilt": tilt,
        "jitter": jitter,
        "seed": seed,
        "draws": draws,
        "timesteps": _csv(timesteps),
        "duration": duration,
        "key": None if key is None else str(key),
        "routes": None if routes is None else [str(r).strip() for r in routes],
        "modes": _csv(modes),
        "refine": bool(refine),
        "jobs": 0 if jobs is None else int(jobs),
    }
    for name in ("offsets", "seed", "draws", "jobs"):
        v = options[name]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise ValueError(f"{name}={v!r}: expected a non-negative whole number")
    for name in ("gap", "tilt", "jitter", "duration"):
        v = options[name]
        if v is not None:
            options[name] = float(v)
            if not math.isfinite(options[name]):
                raise ValueError(f"{name}={v!r}: expected a finite number")
    # like diff, a run on the rust route redirects MuJoCo's collision slot while it runs
    with _lock:
        return json.loads(_native.sweep_json(json.dumps(options)))


class Model:
    """specula's compiled model: every array ``specula check`` compares, under MuJoCo's
    ``mjModel`` names, as read-only float64 numpy arrays (ids and counts too: exact below 2**53);
    one row per element (shape ``(n, k)``, or ``(n,)`` for one value per element). Sizes
    (``nq``, ``nbody``, ...) are ints, options are under ``opt`` (``m.opt.timestep``)."""

    def __init__(self, arrays):
        import types
        import numpy as np

        self.opt = types.SimpleNamespace()
        self.names = []
        for name, cols, data in arrays:
            a = np.frombuffer(data, dtype="<f8")  # a view of the bytes: read-only
            a = a.reshape(-1, cols) if cols > 1 else a
            if name.startswith("opt."):
                setattr(self.opt, name[4:], a)
                continue
            if name.startswith("n") and "_" not in name and a.size == 1:
                a = int(a[0])
            setattr(self, name, a)
            self.names.append(name)

    def __repr__(self):
        return f"specula.Model({len(self.names)} arrays: nbody={getattr(self, 'nbody', '?')}, ngeom={getattr(self, 'ngeom', '?')})"


def load(xml_path):
    """specula's own compilation of an MJCF file, as a ``specula.Model`` of read-only numpy
    arrays (compare them with ``mujoco.MjModel.from_xml_path(path)``'s). Raises MJCFError with
    file, line and column when specula's compiler rejects the file."""
    return Model(_native.load_arrays(str(xml_path)))
