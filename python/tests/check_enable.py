"""The Python package's checks, run by tests/python_pkg.rs in a fresh virtual environment (or by
hand: python python/tests/check_enable.py [--only NAME] [--steps N]).

Every check compares a run with specula enabled against the same run with MuJoCo's own
collision, in the same process: contacts and states after every step, bit for bit, and the calls
specula counted. The last line printed is a JSON summary the Rust test reads.

Other modes, each its own process:
  --expect-foreign     libspecula.so is preloaded: enable() must refuse, naming it
  --fake-version       a mujoco that is not 4.0.0 is imported: `import specula` must refuse
  --autoenabled        run with SPECULA_COLLISION set, importing only mujoco: reports whether the
                       start-up hook (specula_autoenable.pth) enabled specula, and its counters
  --expect-broken-diff SPECULA_TEST_BREAK=1 (a deliberately wrong Rust collider in diff mode):
                       diff mode must count mismatches
"""

import argparse
import hashlib
import json
import os
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "scenes")
SUMMARY = {}


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def counters():
    import specula

    s = specula.stats()
    return {k: s[k] for k in ("calls", "rust_calls", "c_calls", "fallback_calls", "diff_calls", "mismatches")}


def delta(before, after):
    return {k: after[k] - before[k] for k in before}


def step_digests(mujoco, m, d, steps):
    """One digest per step of everything collision feeds: the contacts (geoms, dist, pos,
    frame, params) and the state (qpos, qvel, act), by their bytes."""
    out = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        h = hashlib.sha256()
        c = d.contact
        for a in (c.geom, c.dist, c.pos, c.frame, c.friction, c.solref, c.solimp, c.includemargin):
            h.update(a.tobytes())
        for a in (d.qpos, d.qvel, d.act):
            h.update(a.tobytes())
        h.update(int(d.ncon).to_bytes(4, "little"))
        out.append(h.hexdigest())
    return out


def run_scene(mujoco, m, steps):
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    return step_digests(mujoco, m, d, steps)


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def scenes():
    return sorted(os.path.join(SCENES, f) for f in os.listdir(SCENES) if f.endswith(".xml"))


def check_rust_is_bitwise(mujoco, specula, steps):
    """rust mode: every project scene's contacts and states equal plain MuJoCo's at every step,
    and every step's collision call was served by the Rust stage."""
    bitwise = 0
    for path in scenes():
        name = os.path.basename(path)
        m = mujoco.MjModel.from_xml_path(path)
        plain = run_scene(mujoco, m, steps)
        specula.enable("rust", "compat")
        before = counters()
        rust = run_scene(mujoco, m, steps)
        got = delta(before, counters())
        specula.disable()
        i = first_difference(plain, rust)
        check(i is None, f"{name}: rust mode differs from MuJoCo from step {i}")
        check(got["calls"] == steps, f"{name}: {got['calls']} collision calls reached specula, expected {steps}")
        check(got["rust_calls"] == steps, f"{name}: only {got['rust_calls']} of {steps} calls served by Rust: {got}")
        bitwise += 1
        print(f"rust {name}: {steps} steps bit for bit, {got['rust_calls']} Rust calls")
    SUMMARY["rust_bitwise_scenes"] = bitwise


def check_diff_finds_no_mismatch(mujoco, specula, steps):
    """diff mode, on every scene as it is and with speculative contacts off: MuJoCo's contacts
    kept (bit for bit), every call compared, no mismatch."""
    compared = 0
    contacts = 0
    for path in scenes():
        name = os.path.basename(path)
        xml = open(path).read()
        for variant, text in (("as_is", xml), ("nospec", xml.replace('speculative="enable"', 'speculative="disable"'))):
            m = mujoco.MjModel.from_xml_string(text)
            plain = run_scene(mujoco, m, steps)
            before_report = specula.stats()
            with specula.enabled("diff"):
                before = counters()
                kept = run_scene(mujoco, m, steps)
                got = delta(before, counters())
            after_report = specula.stats()
            check(first_difference(plain, kept) is None, f"{name} {variant}: diff mode changed the run")
            check(got["diff_calls"] == steps, f"{name} {variant}: {got['diff_calls']} calls compared of {steps}: {got}")
            check(got["mismatches"] == 0, f"{name} {variant}: {got['mismatches']} mismatches: "
                  f"{after_report['mismatch_examples'][len(before_report['mismatch_examples']):][:3]}")
            compared += got["diff_calls"]
            contacts += after_report["diff_contacts"] - before_report["diff_contacts"]
    check(contacts > 0, "diff mode compared no contact")
    print(f"diff: {compared} calls compared, {contacts} contacts, 0 mismatches")
    SUMMARY["diff_calls"] = compared
    SUMMARY["diff_contacts"] = contacts
    SUMMARY["diff_mismatches"] = 0


def lowest_part(mujoco, m, steps):
    """The lowest centre of the nine free parts of thin_parts.xml after `steps` steps."""
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return min(float(d.qpos[7 * k + 2]) for k in range(9))


def check_robust_keeps_thin_parts_on_the_pane(mujoco, specula):
    """scenes/thin_parts.xml through MjModel.from_xml_path: MuJoCo's compatible speculative
    contacts let a part through the 5 mm pane (bottom face at 0.295 m); robust mode none."""
    m = mujoco.MjModel.from_xml_path(os.path.join(SCENES, "thin_parts.xml"))
    steps = 400  # 0.5 s
    plain = lowest_part(mujoco, m, steps)
    with specula.enabled("rust", "compat"):
        compat = lowest_part(mujoco, m, steps)
    with specula.enabled("rust", "robust"):
        before = counters()
        robust = lowest_part(mujoco, m, steps)
        got = delta(before, counters())
    check(plain < 0.295 and compat < 0.295, f"MuJoCo no longer lets a part through (plain {plain}, compat {compat})")
    check(robust > 0.295, f"robust mode let a part through: lowest centre at {robust}")
    check(got["rust_calls"] == steps, f"robust: {got}")
    print(f"robust thin_parts: lowest centre {robust:.4f} m (plain MuJoCo {plain:.4f}, compat {compat:.4f})")
    SUMMARY["robust_lowest"] = robust
    SUMMARY["compat_lowest"] = compat


def check_disable_restores_mujoco(mujoco, specula, steps):
    """disable(): the slot holds MuJoCo's function again, calls stop being counted, the attribute
    mujoco.mj_collision is MuJoCo's; enable() twice changes nothing; direct calls are counted."""
    original_attr = mujoco.mj_collision
    m = mujoco.MjModel.from_xml_path(os.path.join(SCENES, "ball_plate.xml"))
    d = mujoco.MjData(m)
    specula.enable()
    check(specula.is_enabled(), "enable() did not enable")
    again = specula._native.enable("rust", None)
    check(again == (0, 1), f"a second enable wrote slots again: {again}")
    check(all(s["value"] == s["specula"] for s in specula.slots()), f"slot not redirected: {specula.slots()}")
    check(mujoco.mj_collision is not original_attr, "mujoco.mj_collision was not wrapped")
    before = counters()
    mujoco.mj_collision(m, d)
    got = delta(before, counters())
    check(got["rust_calls"] == 1, f"a direct mujoco.mj_collision call was not served by specula: {got}")
    specula.disable()
    specula.disable()  # idempotent
    check(not specula.is_enabled(), "disable() did not disable")
    check(mujoco.mj_collision is original_attr, "mujoco.mj_collision was not restored")
    check(all(s["value"] == s["mujoco"] for s in specula.slots()), f"slot not restored: {specula.slots()}")
    before = counters()
    for _ in range(steps):
        mujoco.mj_step(m, d)
    mujoco.mj_collision(m, d)
    got = delta(before, counters())
    check(got["calls"] == 0, f"after disable(), {got['calls']} calls still reached specula")
    # enabled() restores what was before, including an earlier enable with other modes
    specula.enable("diff")
    with specula.enabled("rust", "robust"):
        check(specula.state() == (True, "rust", "robust"), f"{specula.state()}")
    check(specula.state() == (True, "diff", None), f"enabled() did not restore diff mode: {specula.state()}")
    specula.disable()
    for bad in ({"collision": "fast"}, {"speculative": "off"}):
        try:
            specula.enable(**bad)
        except ValueError:
            pass
        else:
            fail(f"enable({bad}) was accepted")
    check(not specula.is_enabled(), "a refused enable() enabled")
    print("disable: slot and mujoco.mj_collision restored, 0 calls counted after it; enable idempotent")


def check_threads_and_rollout(mujoco, specula, steps):
    """4 Python threads stepping their own MjData of one model, and mujoco.rollout on 4 threads:
    bit for bit with MuJoCo, every collision call served by Rust."""
    import numpy as np
    from mujoco import rollout

    m = mujoco.MjModel.from_xml_path(os.path.join(SCENES, "flipper.xml"))

    def threaded():
        finals = [None] * 4

        def work(i):
            finals[i] = run_scene(mujoco, m, steps)[-1]

        ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return finals

    single = run_scene(mujoco, m, steps)[-1]
    with specula.enabled("rust"):
        before = counters()
        finals = threaded()
        got = delta(before, counters())
    check(all(f == single for f in finals), "a thread's final state differs from MuJoCo's")
    check(got["rust_calls"] == 4 * steps == got["calls"], f"threads: {got}")

    nbatch, nstep = 8, steps // 2
    d0 = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d0, 0)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d0, state0, spec)
    initial = np.tile(state0, (nbatch, 1))
    initial[:, 1 + 2] += np.linspace(0.0, 1e-3, nbatch)  # spread the starts a little (a qpos entry)
    datas = [mujoco.MjData(m) for _ in range(4)]
    plain, _ = rollout.rollout(m, datas, initial, nstep=nstep)
    with specula.enabled("rust"):
        before = counters()
        rust, _ = rollout.rollout(m, datas, initial, nstep=nstep)
        got = delta(before, counters())
    check(np.array_equal(plain.view(np.uint64), rust.view(np.uint64)), "rollout differs from MuJoCo's")
    check(got["rust_calls"] == got["calls"] >= nbatch * nstep, f"rollout: {got}")
    print(f"threads: 4 x {steps} steps bit for bit; rollout: {nbatch} x {nstep} steps on 4 threads bit for bit, "
          f"{got['rust_calls']} Rust calls")
    SUMMARY["thread_rust_calls"] = 4 * steps
    SUMMARY["rollout_rust_calls"] = got["rust_calls"]


def expect_foreign():
    import mujoco  # noqa: F401
    import specula

    try:
        specula.enable()
    except specula.SpeculaError as e:
        msg = str(e)
        check("libspecula" in msg, f"the refusal does not name libspecula.so: {msg}")
        check(not specula.is_enabled(), "enabled after refusing")
        print(f"refused: {msg}")
        SUMMARY["foreign_refused"] = True
        return
    fail("enable() accepted a slot that libspecula.so (LD_PRELOAD) had redirected")


def fake_version():
    import types

    sys.modules["mujoco"] = types.SimpleNamespace(__version__="3.3.7", __file__="/fake/mujoco/__init__.py")
    try:
        import specula  # noqa: F401
    except ImportError as e:
        msg = str(e)
        check("4.0.0" in msg and "3.3.7" in msg and "pip install mujoco==4.0.0" in msg, f"unclear: {msg}")
        print(f"refused: {msg}")
        SUMMARY["version_refused"] = True
        return
    fail("import specula accepted mujoco 3.3.7")


def expect_broken_diff(steps):
    import mujoco
    import specula

    check(os.environ.get("SPECULA_TEST_BREAK") == "1", "run with SPECULA_TEST_BREAK=1")
    xml = open(os.path.join(SCENES, "ball_plate.xml")).read().replace('speculative="enable"', 'speculative="disable"')
    m = mujoco.MjModel.from_xml_string(xml)
    with specula.enabled("diff"):
        run_scene(mujoco, m, steps)
    s = specula.stats()
    check(s["test_break"] is True, f"SPECULA_TEST_BREAK was not read: {s}")
    check(s["mismatches"] > 0, f"diff mode did not catch the broken collider: {s}")
    print(f"broken collider: {s['mismatches']} of {s['diff_calls']} diff calls mismatch; first: {s['mismatch_examples'][0]}")
    SUMMARY["broken_mismatches"] = s["mismatches"]
    SUMMARY["broken_diff_calls"] = s["diff_calls"]


def autoenabled(steps):
    import mujoco

    SUMMARY["imported"] = "specula" in sys.modules
    if not SUMMARY["imported"]:
        return
    specula = sys.modules["specula"]
    SUMMARY["state"] = list(specula.state())
    m = mujoco.MjModel.from_xml_path(os.path.join(SCENES, "ball_plate.xml"))
    plain_or_not = run_scene(mujoco, m, steps)
    SUMMARY["steps"] = len(plain_or_not)
    SUMMARY.update(counters())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--only", default=None)
    p.add_argument("--expect-foreign", action="store_true")
    p.add_argument("--fake-version", action="store_true")
    p.add_argument("--expect-broken-diff", action="store_true")
    p.add_argument("--autoenabled", action="store_true")
    a = p.parse_args()
    if a.autoenabled:
        autoenabled(a.steps)
    elif a.expect_broken_diff:
        expect_broken_diff(a.steps)
    elif a.expect_foreign:
        expect_foreign()
    elif a.fake_version:
        fake_version()
    else:
        import mujoco
        import specula

        check(mujoco.__version__ == "4.0.0", mujoco.__version__)
        check(not specula.is_enabled(), "enabled at import")
        check(counters()["calls"] == 0, "calls reached specula before enable()")
        checks = {
            "rust": lambda: check_rust_is_bitwise(mujoco, specula, a.steps),
            "diff": lambda: check_diff_finds_no_mismatch(mujoco, specula, a.steps),
            "robust": lambda: check_robust_keeps_thin_parts_on_the_pane(mujoco, specula),
            "disable": lambda: check_disable_restores_mujoco(mujoco, specula, a.steps),
            "threads": lambda: check_threads_and_rollout(mujoco, specula, a.steps),
        }
        for name, f in checks.items():
            if a.only in (None, name):
                f()
        SUMMARY["total"] = specula.stats()["calls"]
    print(json.dumps(SUMMARY))


if __name__ == "__main__":
    main()
