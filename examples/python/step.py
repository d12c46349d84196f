"""A plain MuJoCo Python program: load a scene, step it, print qpos after every step.

    python step.py SCENE.xml [STEPS]

It knows nothing about specula. Run it with LD_PRELOAD=.../libspecula.so and
SPECULA_COLLISION=rust to have specula's collision stage inside `mujoco.mj_step`. The output has
the same layout as examples/c/step.c (floats printed with repr, which round-trips exactly).
"""

import sys

import mujoco


def main() -> int:
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} SCENE.xml [STEPS]", file=sys.stderr)
        return 2
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    m = mujoco.MjModel.from_xml_path(sys.argv[1])
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    out = []
    for s in range(steps):
        mujoco.mj_step(m, d)
        out.append(" ".join([str(s)] + [repr(float(q)) for q in d.qpos]))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
