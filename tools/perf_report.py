#!/usr/bin/env python3
"""Issue 17's report: the benchmark set timed by wall clock and counted by callgrind.

usage: tools/perf_report.py [--bin target/release/specula] [--out docs/performance.md]
                            [--wall FILE.json] [--passes 7] [--jobs 2] [--only NAME,...]

1. Wall clock: `specula bench --suite --json` (medians of interleaved passes), with the load
   average read before and after (the machine is shared: the ratios move with it). `--wall FILE`
   reads a JSON the suite printed earlier instead (its load averages from FILE.load when there).
2. Instructions: for every scene of the set and every mode, `specula bench SCENE --passes 1`
   under `valgrind --tool=callgrind`, once collecting only inside MuJoCo C's `mj_collision` and
   once only inside specula's `RustStage::replace` (two runs, so that functions both sides call,
   memset or mj_addContact, are not mixed). The per-call count is the inclusive cost of the
   root called from the bench's loop divided by its call count there (the record phase's calls
   are left out). Robust mode has no C counterpart: its ratios are against C's compat count and
   specula's own `off` count.
3. For every ratio over its goal, the breakdown by function group (inclusive instructions per
   call of the functions callgrind sees; inlined code counts in its caller, so groups can
   overlap their callers and do not sum to the total).

Writes the Markdown report to --out (docs/performance.md); the README's table summarises it.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "mjcf", "corpus")

# The set of src/bench/suite.rs (name, file, key), with the states callgrind replays: the wall
# clock's own counts where a callgrind run stays within minutes, fewer where recording the states
# under valgrind would take longer (pile_50's 3000 steps: the callgrind row is its motion phase).
SCENES = [
    ("ball_plate (throw)", "scenes/ball_plate.xml", "throw", 300),
    ("thin_parts (drop)", "scenes/thin_parts.xml", "drop", 300),
    ("newton_cradle (swing)", "scenes/newton_cradle.xml", "swing", 300),
    ("chain (yank)", "scenes/chain.xml", "yank", 300),
    ("flipper (strike)", "scenes/flipper.xml", "strike", 300),
    ("resting (at rest)", "scenes/resting.xml", "drop", 800),
    ("impact_200", "benches/scenes/impact_200.xml", "throw", 100),
    ("grid_150", "benches/scenes/grid_150.xml", None, 100),
    ("meshes_3", "benches/scenes/meshes_3.xml", None, 300),
    ("pile_50", "benches/scenes/pile_50.xml", None, 300),
    ("corpus humanoid.xml", os.path.join(CORPUS, "model/humanoid/humanoid.xml"), "0", 300),
    ("corpus box_stack.xml", os.path.join(CORPUS, "local/box_stack.xml"), None, 300),
]

GOAL_STAGE = 0.5  # Rust stage / C mj_collision, off and compat
GOAL_ROBUST_C = 1.0  # robust / C compat
GOAL_ROBUST_OFF = 1.1  # robust / specula off, at rest: marked on the rows of AT_REST only
# Rows whose states are at rest (the robust-over-off goal's subject); elsewhere robust mode does
# work off does not (arrests of fast bodies) and its ratio is shown unmarked.
AT_REST = ("resting (at rest)", "pile_50 (3000 states)")
# Rest rows callgrind runs on specula's side only (off and robust): the pile's 3000 states, motion
# then rest, as the wall clock times them (recording them under valgrind takes minutes).
REST_EXTRA = [("pile_50 (3000 states)", "benches/scenes/pile_50.xml", None, 3000)]
GOAL_STEP = 0.95  # rust-route step / C-route step

C_ROOT = "mj_collision"
R_ROOT = "specula::route::RustStage::replace"

# Function groups: (group, C functions, specula functions). A group's cost is the sum of its
# listed functions' inclusive costs, so each list names functions that do not call one another (a
# kernel's wrapper, which includes its raw kernel; siblings like mj_SAP and add_pair; C's
# filterCollisionPair calls mj_filterSphere). specula's kernels make their contact frames, C's
# driver makes them after the kernels (docs/measurements.md P4): that row overlaps specula's
# kernel rows, not C's. specula's mid-phase calls its pair filters from inside the tree walk.
GROUPS = [
    ("broadphase (SAP, pairs, axes)", ["mj_SAP", "add_pair", "mju_eig3Tol"], ["specula_engine::collision::broadphase::broadphase"]),
    ("midphase (BVH)", ["mj_collideTree"], ["specula_engine::collision::bvh::*"]),
    ("pair filter", ["filterCollisionPair"], ["specula_engine::collision::driver::filter_collision_pair"]),
    ("parameter mixing", ["mj_contactParam"], ["specula_engine::collision::params::mix_geom_params"]),
    ("narrowphase dispatch (all kernels)", ["mju_dispatch"], ["specula_engine::narrowphase::table::collide"]),
    ("box-box", ["mjc_BoxBox"], ["specula_engine::narrowphase::box::box_box"]),
    ("plane-box", ["mjc_PlaneBox"], ["specula_engine::narrowphase::primitive::plane_box"]),
    ("sphere-box", ["mjc_SphereBox"], ["specula_engine::narrowphase::box::sphere_box"]),
    ("capsule-box", ["mjc_CapsuleBox"], ["specula_engine::narrowphase::box::capsule_box"]),
    ("convex (GJK/EPA/multiccd)", ["mjc_Convex"], ["specula_engine::narrowphase::convex::collide_convex"]),
    ("contact frames (C: driver; specula: in kernels)", ["mju_makeFrame"], ["specula_engine::math::make_frame"]),
    ("speculative: motions", ["mjc_geomStepMotion"], ["specula_engine::speculative::sweep::Motions::compute"]),
    ("speculative: swept pairs", [], ["specula_engine::speculative::sweep::swept_prune"]),
    ("speculative: pair contacts", [], ["specula_engine::speculative::pair_contacts",
                                        "specula_engine::speculative::speculative_contacts*"]),
    ("contact assembly", [], ["specula_engine::collision::driver::push_contacts"]),
    ("mj_addContact", ["mj_addContact"], ["mj_addContact"]),
    ("memset/memcpy", ["__memset*", "__memcpy*", "__memmove*"], ["__memset*", "__memcpy*", "__memmove*"]),
]

LINE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(?:\S*?:)?(.+?) \[(.*)\]\s*$")
TREE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+([<*>])\s+(?:\S*?:)?(.+?)(?: \(([\d,]+)x\))? \[.*$")


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def cached(cache, key, fn, *a):
    """`fn(*a)`, or its result saved under `key` in the directory `cache` by an earlier run."""
    if not cache:
        return fn(*a)
    os.makedirs(cache, exist_ok=True)
    f = os.path.join(cache, re.sub(r"[^A-Za-z0-9_.-]+", "_", key) + ".json")
    if os.path.exists(f):
        with open(f) as h:
            return tuple(json.load(h))
    r = fn(*a)
    with open(f, "w") as h:
        json.dump(r, h)
    return r


def file_hash(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def valgrind(toggle, cmd, key):
    """Runs `cmd` (plus `--key KEY`) under callgrind collecting only inside functions matching
    `toggle`; returns callgrind_annotate's inclusive caller tree and flat listing."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--toggle-collect={toggle}"] + cmd
        if key is not None:
            cmd += ["--key", key]
        r = sh(cmd)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {r.stderr[-2000:]}")
        ann = ["callgrind_annotate", "--inclusive=yes", "--threshold=100"]
        return sh(ann + ["--tree=caller", out]).stdout, sh(ann + [out]).stdout


def callgrind(binary, path, key, mode, states, side):
    """One callgrind run; returns (per-call total, calls, {function: inclusive per call})."""
    root = C_ROOT if side == "c" else R_ROOT
    toggle = "mj_collision" if side == "c" else "*RustStage*replace*"
    tree, flat = valgrind(toggle, [binary, "bench", path, "--speculative", mode, "--steps", str(states),
                                   "--passes", "1"], key)
    # the root's cost and calls from the bench's loop (the C route's record steps call
    # mj_collision through mj_fwdPosition: not counted)
    total, calls, callers = None, None, []
    for line in tree.splitlines():
        m = TREE.match(line)
        if not m:
            continue
        cost, mark, fn = int(m.group(1).replace(",", "")), m.group(2), m.group(3).strip()
        if mark == "<":
            callers.append((cost, fn, int((m.group(4) or "0").replace(",", ""))))
        elif mark == "*":
            if fn == root:
                for c, f, n in callers:
                    if "fwdPosition" not in f and "mj_step" not in f and "mj_forward" not in f:
                        total, calls = c, n
                        break
            callers = []
        else:
            callers = []
    if total is None:
        raise RuntimeError(f"{path} {mode} {side}: no call of {root} from the bench loop in the profile")
    funcs = {}
    for line in flat.splitlines():
        m = LINE.match(line)
        if m:
            funcs[m.group(2).strip()] = int(m.group(1).replace(",", "")) / calls
    return total / calls, calls, funcs


# The whole step on both routes (issue 17: rust route <= 0.95 x C route): the scenes of the set's
# step rows, with the steps callgrind replays.
STEP_SCENES = [
    ("pile_50", "benches/scenes/pile_50.xml", None, 300),
    ("corpus humanoid.xml", os.path.join(CORPUS, "model/humanoid/humanoid.xml"), "0", 300),
]


def callgrind_step(binary, path, key, route, steps):
    """Instructions per `mj_step` on one route (`specula run --route ROUTE`, collecting only
    inside mj_step): (per step, steps)."""
    tree, _ = valgrind("mj_step", [binary, "run", path, "--route", route, "--steps", str(steps)], key)
    total, calls, callers = 0, 0, []
    for line in tree.splitlines():
        m = TREE.match(line)
        if not m:
            continue
        if m.group(2) == "<":
            callers.append((int(m.group(1).replace(",", "")), int((m.group(4) or "0").replace(",", ""))))
        elif m.group(2) == "*":
            if m.group(3).strip() == "mj_step":
                total, calls = sum(c for c, _ in callers), sum(n for _, n in callers)
            callers = []
    if not calls:
        raise RuntimeError(f"{path} {route}: no mj_step in the profile")
    return total / calls, calls


def match(name, pats):
    return any(name == p or (p.endswith("*") and name.startswith(p[:-1])) for p in pats)


def groups(funcs, side):
    """Inclusive cost per group (the sum of its listed functions)."""
    out = {}
    for g, cpats, rpats in GROUPS:
        pats = cpats if side == "c" else rpats
        out[g] = sum(v for k, v in funcs.items() if match(k, pats))
    return out


def load_wall(args):
    if args.wall:
        with open(args.wall) as f:
            rows = json.load(f)
        load = None
        if os.path.exists(args.wall + ".load"):
            with open(args.wall + ".load") as f:
                load = f.read().strip()
        return rows, load
    before = os.getloadavg()
    r = sh([args.bin, "bench", "--suite", "--json", "--passes", str(args.passes)], cwd=ROOT)
    after = os.getloadavg()
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    load = "load average (1, 5, 15 min) %.1f %.1f %.1f before, %.1f %.1f %.1f after" % (before + after)
    return json.loads(r.stdout), load


def fmt(x):
    return f"{x:,.0f}"


def mark(ratio, goal):
    return f"{ratio:.2f}" + (" ✗" if ratio > goal else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/specula"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/performance.md"))
    ap.add_argument("--wall", help="a `bench --suite --json` output to use instead of running it")
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="comma-separated scene names (prefixes) for the callgrind part")
    ap.add_argument("--no-wall", action="store_true", help="callgrind part only")
    ap.add_argument("--no-rest-extra", action="store_true", help="leave out the REST_EXTRA rows (minutes each)")
    ap.add_argument("--cache", help="keep each callgrind result in this directory and reuse it: C's counts "
                    "by scene, mode and libmujoco; specula's also by the binary's hash")
    args = ap.parse_args()

    scenes = [s for s in SCENES if os.path.isfile(s[1] if os.path.isabs(s[1]) else os.path.join(ROOT, s[1]))]
    if args.only:
        keep = args.only.split(",")
        scenes = [s for s in scenes if any(s[0].startswith(k) for k in keep)]
    jobs = []
    for name, rel, key, states in scenes:
        path = rel if os.path.isabs(rel) else os.path.join(ROOT, rel)
        for mode, sides in (("off", "cr"), ("compat", "cr"), ("robust", "r")):
            for side in sides:
                jobs.append((name, path, key, mode, states, side))
    extra = [] if args.only or args.no_rest_extra else REST_EXTRA
    for name, rel, key, states in extra:
        for mode in ("off", "robust"):
            jobs.append((name, os.path.join(ROOT, rel), key, mode, states, "r"))
    results, steps = {}, {}
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        binh = file_hash(args.bin)

        def ckey(name, m, n, s):
            return f"{name}-{m}-{n}-{s}" + ("" if s == "c" else f"-{binh}")

        futs = {ex.submit(cached, args.cache, ckey(name, m, n, s), callgrind, args.bin, p, k, m, n, s): (name, m, s)
                for name, p, k, m, n, s in jobs}
        sfuts = {}
        if not args.only:
            for name, rel, key, n in STEP_SCENES:
                path = rel if os.path.isabs(rel) else os.path.join(ROOT, rel)
                if os.path.isfile(path):
                    for route in ("c", "rust"):
                        sk = f"step-{name}-{route}-{n}-{binh}"
                        sfuts[ex.submit(cached, args.cache, sk, callgrind_step, args.bin, path, key, route, n)] = (
                            name, route)
        for f, k in futs.items():
            results[k] = f.result()
            print(f"callgrind {k}: {results[k][0]:,.0f} instructions per call ({results[k][1]} calls)",
                  file=sys.stderr)
        for f, k in sfuts.items():
            steps[k] = f.result()
            print(f"callgrind step {k}: {steps[k][0]:,.0f} instructions per step ({steps[k][1]} steps)",
                  file=sys.stderr)
    wall, load = (None, None) if args.no_wall else load_wall(args)
    write(args.out, scenes, extra, results, steps, wall, load)


def write(out, scenes, extra, res, steps, wall, load):
    L = ["# Collision stage performance (issue 17)", "",
         "Generated by `tools/perf_report.py` (re-run it to regenerate; it takes tens of minutes, most",
         "of it valgrind). Goals of issue 17: the Rust stage ≤ 0.5 × MuJoCo C's `mj_collision` with",
         "speculative contacts off and compat; robust ≤ 1.0 × C's compat and ≤ 1.1 × specula's own `off`",
         "at rest; the rust-route step ≤ 0.95 × the C route's. ✗ marks a miss. The README's section",
         "\"Collision stage speed\" says, for each miss, why.", ""]
    L += ["## Instructions per collision call (callgrind, load-independent)", "",
          "`specula bench SCENE --passes 1` under `valgrind --tool=callgrind`, collecting only inside",
          "C's `mj_collision` (one run) or specula's `RustStage::replace` (another), divided by the calls",
          "made from the bench's loop. Instructions are not time (a division or a cache miss costs",
          "more than an add) but do not move with the machine's load.", "",
          "| scene | states | off: C / specula (ratio) | compat: C / specula (ratio) | robust: specula (vs C compat, vs own off) |",
          "|---|---|---|---|---|"]
    over = []
    for name, _, _, states in scenes:
        c_off, r_off = res[(name, "off", "c")][0], res[(name, "off", "r")][0]
        c_cp, r_cp = res[(name, "compat", "c")][0], res[(name, "compat", "r")][0]
        r_rb = res[(name, "robust", "r")][0]
        cells = []
        for mode, c, r in (("off", c_off, r_off), ("compat", c_cp, r_cp)):
            cells.append(f"{fmt(c)} / {fmt(r)} ({mark(r / c, GOAL_STAGE)})")
            if r / c > GOAL_STAGE:
                over.append((name, mode, "c"))
        goal_off = GOAL_ROBUST_OFF if name in AT_REST else float("inf")
        rb = f"{fmt(r_rb)} ({mark(r_rb / c_cp, GOAL_ROBUST_C)}, {mark(r_rb / r_off, goal_off)})"
        if r_rb / c_cp > GOAL_ROBUST_C or r_rb / r_off > goal_off:
            over.append((name, "robust", "r"))
        L.append(f"| {name} | {states} | {cells[0]} | {cells[1]} | {rb} |")
    for name, _, _, states in extra:
        r_off, r_rb = res[(name, "off", "r")][0], res[(name, "robust", "r")][0]
        goal_off = GOAL_ROBUST_OFF if name in AT_REST else float("inf")
        L.append(f"| {name} | {states} | – / {fmt(r_off)} | | {fmt(r_rb)} (–, {mark(r_rb / r_off, goal_off)}) |")
        if r_rb / r_off > goal_off:
            over.append((name, "robust", "r"))
    L += ["", "The robust-over-off ratio is marked only on rows at rest (" + ", ".join(AT_REST) + "): the goal",
          "is stated at rest, and on the other rows robust mode arrests fast bodies, which off does not try.", ""]
    if steps:
        L += ["Whole steps (`specula run SCENE --route c|rust` under callgrind, collecting only inside",
              "`mj_step`; instructions per step):", "",
              "| scene (whole step) | steps | C route | rust route | ratio |", "|---|---|---|---|---|"]
        for name, _, _, n in STEP_SCENES:
            if (name, "c") in steps:
                c, r = steps[(name, "c")][0], steps[(name, "rust")][0]
                L.append(f"| {name} | {n} | {fmt(c)} | {fmt(r)} | {mark(r / c, GOAL_STEP)} |")
        L.append("")
    if wall is not None:
        L += ["## Wall clock (`specula bench --suite`, medians of interleaved passes)", "",
              f"Machine: {os.cpu_count()} cores, {load or 'load average not recorded'}. With the cores",
              "shared by other jobs a scene's times move between runs by more than the differences",
              "measured here; read the ratios against the load, and the instruction counts above first.", "",
              "| scene | states | off: C / specula ns (ratio) | compat: C / specula ns (ratio) | robust: specula ns (vs C compat, vs own off) |",
              "|---|---|---|---|---|"]
        for w in wall:
            o, c, r = w["off"], w["compat"], w["robust"]
            rest = any(w["scene"].startswith(n.split(" (")[0]) for n in AT_REST)
            goal_off = GOAL_ROBUST_OFF if rest else float("inf")
            L.append(f"| {w['scene']} | {w['states']} | {o['c_ns']:.0f} / {o['rust_ns']:.0f} ({mark(o['ratio'], GOAL_STAGE)}) | "
                     f"{c['c_ns']:.0f} / {c['rust_ns']:.0f} ({mark(c['ratio'], GOAL_STAGE)}) | "
                     f"{r['rust_ns']:.0f} ({mark(r['ratio'], GOAL_ROBUST_C)}, {mark(w['robust_over_off'], goal_off)}) |")
        steps = [w for w in wall if w.get("step")]
        if steps:
            L += ["", "| scene (whole step) | steps | C route | rust route | ratio |", "|---|---|---|---|---|"]
            for w in steps:
                s = w["step"]
                L.append(f"| {w['scene']} | {s['steps']} | {s['c_ns']:.0f} ns | {s['rust_ns']:.0f} ns | {mark(s['ratio'], GOAL_STEP)} |")
        L.append("")
    L += ["## Where the instructions go, on every row over its goal", "",
          "Inclusive instructions per call of each group's functions as callgrind sees them (a",
          "kernel's wrapper includes its raw kernel; specula's kernels include their contact frames,",
          "MuJoCo's driver makes them after its kernels, `docs/measurements.md` P4; code inlined into",
          "the driver counts in no group: C builds its bounding boxes inside `mj_collision`, specula",
          "inside its `broadphase`; specula's mid-phase calls its pair filters; the rows overlap and",
          "do not sum to the total).",
          "Robust rows compare specula robust with C compat.", ""]
    for name, mode, _ in over:
        cm = "compat" if mode == "robust" else mode
        c_tot, _, c_f = res.get((name, cm, "c"), (0.0, 0, {}))
        r_tot, _, r_f = res[(name, mode, "r")]
        gc, gr = groups(c_f, "c"), groups(r_f, "r")
        if mode == "robust":
            # robust against both of its references: C's compat and specula's own off
            o_tot, _, o_f = res[(name, "off", "r")]
            go = groups(o_f, "r")
            L += [f"### {name}, robust", "", "| group | C (compat) | specula (off) | specula (robust) | robust − off |",
                  "|---|---|---|---|---|",
                  f"| total | {fmt(c_tot)} | {fmt(o_tot)} | {fmt(r_tot)} | {r_tot - o_tot:+,.0f} |"]
            for g, _, _ in GROUPS:
                if gc[g] or gr[g] or go[g]:
                    L.append(f"| {g} | {fmt(gc[g])} | {fmt(go[g])} | {fmt(gr[g])} | {gr[g] - go[g]:+,.0f} |")
            L.append("")
            continue
        L += [f"### {name}, {mode}", "", f"| group | C ({cm}) | specula ({mode}) | specula − C |", "|---|---|---|---|",
              f"| total | {fmt(c_tot)} | {fmt(r_tot)} | {r_tot - c_tot:+,.0f} |"]
        for g, _, _ in GROUPS:
            if gc[g] or gr[g]:
                L.append(f"| {g} | {fmt(gc[g])} | {fmt(gr[g])} | {gr[g] - gc[g]:+,.0f} |")
        L.append("")
    with open(out, "w") as f:
        f.write("\n".join(L))
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
