#!/usr/bin/env python3
"""Contact agreement per geom type pair, as the README reports it.

Runs `specula diff --json` on every corpus file (500 steps; 200 for the two largest) and on the
project scenes (1000 steps, speculative contacts off and compat), then prints one Markdown row per
type pair: contacts compared, missing, extra, the largest absolute errors and the number of files.
Usage: python3 tools/agreement.py [path/to/specula] [corpus dir]   (release build expected)
"""
import json
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "specula")
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared", "mjcf", "corpus")
SHORT = {"dice.xml", "bunnies.xml"}
SCENES = [("ball_plate", "throw"), ("chain", "yank"), ("flipper", "strike"), ("newton_cradle", "swing"),
          ("thin_parts", "drop"), ("resting", "drop")]


def run(args):
    out = subprocess.run([EXE, "diff", "--json", *args], capture_output=True, text=True)
    if not out.stdout.strip():
        return None
    return json.loads(out.stdout)


def main():
    jobs = []
    for dirpath, _, files in os.walk(CORPUS):
        for f in sorted(files):
            if f.endswith(".xml"):
                steps = "200" if f in SHORT else "500"
                jobs.append((os.path.join(dirpath, f), [os.path.join(dirpath, f), "--steps", steps]))
    for name, key in SCENES:
        path = os.path.join(ROOT, "scenes", name + ".xml")
        for mode in ("off", "compat"):
            jobs.append((path, [path, "--key", key, "--steps", "1000", "--speculative", mode]))
    rows = defaultdict(lambda: {"contacts": 0, "missing": 0, "extra": 0, "files": set(),
                                "dist": 0.0, "pos": 0.0, "frame": 0.0, "params": 0.0})
    verdicts = []
    for path, args in sorted(jobs):
        r = run(args)
        if r is None:
            continue  # not a loadable scene (include fragments, assets)
        verdicts.append((os.path.relpath(path, ROOT), " ".join(args[1:]), r["verdict"]))
        for p in r["pairs"]:
            row = rows["-".join(p["types"])]
            row["contacts"] += p["contacts"]
            row["missing"] += p["missing"]
            row["extra"] += p["extra"]
            row["files"].add(path)
            for k in ("dist", "pos", "frame", "params"):
                row[k] = max(row[k], p["max_err"][k])
    print("| type pair | contacts compared | missing | extra | max abs dist | max abs pos | max frame | max params | files |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in sorted(rows):
        r = rows[k]
        print(f"| {k} | {r['contacts']} | {r['missing']} | {r['extra']} | {r['dist']:.1e} | {r['pos']:.1e} | "
              f"{r['frame']:.1e} | {r['params']:.1e} | {len(r['files'])} |")
    print()
    for path, args, v in verdicts:
        if v != "match":
            print(f"differ: {path} {args}")
    print(f"{sum(v == 'match' for _, _, v in verdicts)} of {len(verdicts)} runs match")


if __name__ == "__main__":
    main()
