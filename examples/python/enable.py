"""specula inside a plain MuJoCo Python program, with no LD_PRELOAD: `specula.enable()`.

    pip install mujoco==4.0.0 .        # once, in the clone
    python examples/python/enable.py [SCENE.xml] [STEPS]

Drops the nine thin parts of scenes/thin_parts.xml (by default) onto a 5 mm pane four times:
with MuJoCo's own collision, with specula's Rust stage in MuJoCo-compatible mode (the same run,
bit for bit), in diff mode (MuJoCo's contacts compared with specula's on every call), and in
specula's robust mode, in which nothing goes through. Prints where the lowest part ended and
what specula counted.
"""

import os
import sys

import mujoco

import specula

HERE = os.path.dirname(os.path.abspath(__file__))


def run(m, steps):
    """Steps the scene from its first keyframe; returns the final qpos and the lowest free body."""
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(steps):
        mujoco.mj_step(m, d)
    free = [b for b in range(1, m.nbody)
            if m.body_jntnum[b] > 0 and m.jnt_type[m.body_jntadr[b]] == mujoco.mjtJoint.mjJNT_FREE]
    lowest = min(free or range(1, m.nbody), key=lambda b: d.xpos[b][2])
    name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, lowest) or f"body {lowest}"
    return d.qpos.copy(), name, float(d.xpos[lowest][2])


def main():
    scene = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "scenes", "thin_parts.xml")
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    m = mujoco.MjModel.from_xml_path(scene)
    print(f"{os.path.basename(scene)}, {steps} steps of {m.opt.timestep * 1e3:g} ms:")

    plain, name, z = run(m, steps)
    print(f"  MuJoCo's collision:         lowest body {name} at z = {z:.4f} m")

    with specula.enabled("rust", "compat"):
        before = specula.stats()["rust_calls"]
        rust, name, z = run(m, steps)
        served = specula.stats()["rust_calls"] - before
    same = "bit for bit the same run" if plain.tobytes() == rust.tobytes() else "NOT the same run"
    print(f"  specula, compat:            lowest body {name} at z = {z:.4f} m ({same}; {served} calls in Rust)")

    with specula.enabled("diff"):
        before = specula.stats()
        run(m, steps)
        after = specula.stats()
    compared = after["diff_calls"] - before["diff_calls"]
    mismatches = after["mismatches"] - before["mismatches"]
    print(f"  specula, diff:              {compared} collision calls compared, {mismatches} mismatches")

    with specula.enabled("rust", "robust"):
        _, name, z = run(m, steps)
    print(f"  specula, robust:            lowest body {name} at z = {z:.4f} m")

    s = specula.stats()
    print(f"specula counted {s['calls']} collision calls: {s['rust_calls']} in Rust, {s['c_calls']} by MuJoCo, "
          f"{s['fallback_calls']} fallbacks; enabled now: {specula.is_enabled()}")


if __name__ == "__main__":
    main()
