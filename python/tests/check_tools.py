"""The tools from Python (specula.check, specula.diff, specula.sweep, specula.load), run by
tests/python_pkg.rs in its virtual environment (or by hand: python python/tests/check_tools.py
--cli target/release/specula). Each answer is checked
against MuJoCo's own Python binding or against what the CLI's JSON holds; the last line printed is
a JSON summary the Rust test reads.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import mujoco
import specula

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "scenes")
SUMMARY = {}


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return str(e)
    fail(f"{fn.__name__}{args} did not raise {exc.__name__}")


def main():
    scene = os.path.join(SCENES, "thin_parts.xml")
    original_collision = mujoco.mj_collision

    # check: the CLI's JSON, and a match on a project scene
    c = specula.check(scene)
    check(c["verdict"] == "match" and c["fields"] > 100 and c["values"] > 1000, f"check: {c}")
    check(c["mismatches"] == [], f"check mismatches: {c['mismatches'][:3]}")
    SUMMARY["check_fields"] = c["fields"]

    # a file both compilers reject: a result, with both messages (specula's with line and column)
    bad = os.path.join(tempfile.mkdtemp(), "bad.xml")
    with open(bad, "w") as f:
        f.write('<mujoco>\n  <worldbody>\n    <geom type="sphere" size="abc"/>\n  </worldbody>\n</mujoco>\n')
    r = specula.check(bad)
    check(r["verdict"] == "match" and r["c_error"] and r["rust_error"], f"check of a bad file: {r}")
    check("bad.xml:3:" in r["rust_error"], f"specula's message names file:line: {r['rust_error']}")

    # load: specula's arrays equal MuJoCo's where the compilers agree (check said they do)
    m = specula.load(scene)
    mm = mujoco.MjModel.from_xml_path(scene)
    check(m.nbody == mm.nbody and m.ngeom == mm.ngeom, f"sizes: {m.nbody} {mm.nbody}")
    for name in ("geom_size", "geom_pos", "body_mass", "body_pos", "qpos0", "geom_type", "geom_bodyid"):
        a, b = getattr(m, name), np.asarray(getattr(mm, name), dtype=float).reshape(getattr(m, name).shape)
        check(np.allclose(a, b, rtol=1e-9, atol=1e-12), f"{name}: specula {a[:3]} mujoco {b[:3]}")
        check(not a.flags.writeable, f"{name} is read-only")
    check(abs(m.opt.timestep[0] - mm.opt.timestep) == 0.0, "opt.timestep")
    try:
        m.geom_size[0, 0] = 1.0
        fail("a loaded array could be written")
    except ValueError:
        pass
    SUMMARY["load_arrays"] = len(m.names)

    # load of a bad file: MJCFError (a ValueError) with file:line:col
    msg = raises(specula.MJCFError, specula.load, bad)
    check("bad.xml:3:" in msg, f"MJCFError names file:line:col: {msg}")
    check(issubclass(specula.MJCFError, ValueError), "MJCFError is a ValueError")
    raises(FileNotFoundError, specula.load, os.path.join(SCENES, "no_such_scene.xml"))

    # diff: the rust route against MuJoCo, contact by contact
    d = specula.diff(scene, steps=200, key="drop")
    check(d["verdict"] == "match" and d["contacts"] > 0 and d["unmatched"] == 0, f"diff: {d}")
    robust = specula.diff(scene, steps=50, key="drop", speculative="robust")
    check("verdict" in robust and robust["steps"] == 50, f"diff robust: {robust}")
    SUMMARY["diff_contacts"] = d["contacts"]
    msg = raises(specula.MuJoCoError, specula.diff, scene, steps=10, key="no_such_key")
    check("no_such_key" in msg, f"a bad key is MuJoCoError naming it: {msg}")
    raises(specula.MJCFError, specula.diff, bad, steps=10)
    raises(ValueError, specula.diff, scene, steps=10, speculative="fast")

    # sweep: the same JSON as the CLI's `--format json`, on a preset and on a scene, every mode
    cli = sys.argv[sys.argv.index("--cli") + 1] if "--cli" in sys.argv else None
    ball = os.path.join(SCENES, "ball_plate.xml")
    runs = [
        (dict(preset="quick", modes=["off", "compat"], routes=["c", "rust"], jobs=2),
         ["--preset", "quick", "--modes", "off,compat", "--route", "c,rust", "--jobs", "2"]),
        (dict(scene=ball, bodies=["ball"], speeds=[5, 20], offsets=1, duration=0.1),
         [ball, "--body", "ball", "--speeds", "5,20", "--offsets", "1", "--duration", "0.1"]),
    ]
    for kwargs, argv in runs:
        s = specula.sweep(**kwargs)
        check(len(s["runs"]) > 0 and s["shard"] == "1/1", f"sweep {kwargs}: {str(s)[:300]}")
        if cli:
            out = subprocess.run([cli, "sweep", *argv, "--format", "json", "--progress", "never"],
                                 capture_output=True, text=True)
            check(out.returncode == 0, f"specula sweep {argv}: {out.stderr}")
            check(json.loads(out.stdout) == s, f"sweep {kwargs}: Python's runs differ from the CLI's")
        SUMMARY.setdefault("sweep_runs", 0)
        SUMMARY["sweep_runs"] += len(s["runs"])
    by_mode = {r["mode"]: r for r in specula.sweep(ball, bodies="ball", speeds=[20], offsets=1,
                                                  duration=0.1)["runs"]}
    # the rust route ran specula's stage: its robust run holds the ball MuJoCo's off run lets through
    check(by_mode["off"]["outcome"] == "PASS" and by_mode["robust"]["outcome"] == "LAND"
          and by_mode["robust"]["route"] == "rust", f"sweep modes at 20 m/s: {by_mode}")
    check(not specula.is_enabled() and mujoco.mj_collision is original_collision, "sweep restores the slot")
    msg = raises(ValueError, specula.sweep, ball, bodies=["ball"], speeds="3:1:1")
    check("empty" in msg, f"bad speeds: {msg}")
    raises(ValueError, specula.sweep, preset="no_such_preset")
    raises(ValueError, specula.sweep, ball, bodies=["ball"], tilt=float("nan"))
    raises(ValueError, specula.sweep, preset="quick", bodies=["ball"])
    msg = raises(specula.MJCFError, specula.sweep, bad, bodies=["ball"])
    check("bad.xml:3:" in msg, f"sweep's MJCFError names file:line:col: {msg}")
    msg = raises(specula.MuJoCoError, specula.sweep, ball, bodies=["no_such_body"])
    check("no_such_body" in msg, f"an unknown body is named: {msg}")
    SUMMARY["sweep_compared_with_cli"] = cli is not None

    # a diff in one thread while another enables and disables: the diff keeps the collision
    # slot for its run (enable/disable wait for it), and everything is as before afterwards
    import threading

    original = mujoco.mj_collision
    out = {}
    worker = threading.Thread(target=lambda: out.update(d=specula.diff(scene, steps=300, key="drop")))
    worker.start()
    toggles = 0
    while worker.is_alive() and toggles < 200:
        specula.enable("c")
        specula.disable()
        toggles += 1
    worker.join()
    check(out.get("d", {}).get("verdict") == "match", f"diff beside enable/disable: {out}")
    check(out["d"]["contacts"] == specula.diff(scene, steps=300, key="drop")["contacts"], "same contacts")
    check(not specula.is_enabled() and mujoco.mj_collision is original, "state after the threads")
    SUMMARY["toggles_beside_diff"] = toggles

    print("tools: ok")
    print(json.dumps(SUMMARY))


if __name__ == "__main__":
    main()
