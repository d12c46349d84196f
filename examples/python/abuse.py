"""A MuJoCo Python program that mistreats its models, for the drop-in's bad-input tests.

    python abuse.py [ROUNDS]

It knows nothing about specula. Three phases, each printing lines that must be the same with
and without LD_PRELOAD=libspecula.so (except the `rss` lines):
1. qpos set to NaN in the middle of a run (convex and analytic pairs);
2. geom sizes and margins edited between steps to negative, NaN, huge and 1e308 values;
3. 50 different models loaded ROUNDS times (default 20), each stepped a little and dropped;
   `rss ROUND KB` after each round (the resident set, from /proc/self/status).
"""

import ctypes
import gc
import math
import sys

import mujoco

SCENE = """<mujoco><worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .3"><freejoint/><geom type="ellipsoid" size=".1 .12 .08"/></body>
<body pos=".05 0 .5"><freejoint/><geom type="cylinder" size=".1 .05"/></body>
<body pos="0 .05 .7"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body pos="0 0 .9"><freejoint/><geom type="sphere" size=".1"/></body>
<body pos=".02 0 1.1"><freejoint/><geom type="capsule" size=".05 .1"/></body>
</worldbody></mujoco>"""


def contacts(d):
    """The contact count, geom pairs and distances, as one comparable string."""
    pairs = sorted((int(c.geom[0]), int(c.geom[1]), repr(float(c.dist))) for c in d.contact[: d.ncon])
    return f"ncon {d.ncon} pairs {pairs}"


def step(m, d, n):
    """n steps; the error MuJoCo raises, if it does, in words."""
    try:
        for _ in range(n):
            mujoco.mj_step(m, d)
    except Exception as e:  # mujoco.FatalError and friends
        return f"error {type(e).__name__}: {e}"
    return contacts(d)


def nan_midway():
    m = mujoco.MjModel.from_xml_string(SCENE)
    d = mujoco.MjData(m)
    print("nan before", step(m, d, 300))
    d.qpos[:] = math.nan
    print("nan after", step(m, d, 1))
    print("nan later", step(m, d, 5))


def edits():
    for field, value in [
        ("size", -0.1),
        ("size", math.nan),
        ("size", 1e308),
        ("margin", -0.5),
        ("margin", math.nan),
        ("margin", 1e308),
    ]:
        m = mujoco.MjModel.from_xml_string(SCENE)
        d = mujoco.MjData(m)
        step(m, d, 100)
        # every geom but the floor (whose negative size MuJoCo rejects in the XML only)
        getattr(m, "geom_" + field)[1:] = value
        print(f"edit {field}={value}", step(m, d, 1), "|", step(m, d, 20))


def rss_kb():
    # freed heap pages go back to the system first, so the number is what is still live (plus
    # MuJoCo's and Python's pools), not how fragmented glibc's arenas happen to be this run
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def model(k):
    """Model k of 50: k % 5 + 2 bodies of a type that depends on k."""
    geoms = ['type="sphere" size=".1"', 'type="box" size=".1 .1 .1"', 'type="ellipsoid" size=".1 .12 .08"']
    bodies = "".join(
        f'<body pos="{0.25 * i} {0.01 * k} {0.3 + 0.25 * i}"><freejoint/><geom {geoms[(k + i) % 3]}/></body>'
        for i in range(k % 5 + 2)
    )
    return f'<mujoco><worldbody><geom type="plane" size="5 5 .1"/>{bodies}</worldbody></mujoco>'


def many_models(rounds):
    xmls = [model(k) for k in range(50)]
    for r in range(1, rounds + 1):
        for xml in xmls:
            m = mujoco.MjModel.from_xml_string(xml)
            d = mujoco.MjData(m)
            for _ in range(5):
                mujoco.mj_step(m, d)
            del d, m
        gc.collect()
        print(f"rss {r} {rss_kb()}")


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    nan_midway()
    edits()
    many_models(rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
