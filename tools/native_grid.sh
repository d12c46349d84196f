#!/usr/bin/env bash
# The native route against mj_step over the corpus and the project scenes, for every
# integrator x solver x cone (issue 15's acceptance grid): one `specula diff --route native` per
# file and option set, then a table of match / differ / refused per option set.
#
# usage: tools/native_grid.sh BIN OUTDIR [STEPS] [JOBS]
#   BIN     the specula binary (release build)
#   OUTDIR  one result line per run goes to OUTDIR/runs.tsv (kept between calls: runs already
#           there are skipped, so an interrupted sweep resumes)
#   STEPS   steps per run (1000)
#   JOBS    runs at once (2)
# Environment: CORPUS (default ../shared/mjcf/corpus), INTEGRATORS, SOLVERS, CONES (space-separated
# subsets of the grid), TIMEOUT (seconds per run, 120).
set -u
BIN=$1; OUT=$2; STEPS=${3:-1000}; JOBS=${4:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/mjcf/corpus}
INTEGRATORS=${INTEGRATORS:-"euler implicitfast implicit rk4"}
SOLVERS=${SOLVERS:-"pgs cg newton"}
CONES=${CONES:-"pyramidal elliptic"}
TIMEOUT=${TIMEOUT:-120}
mkdir -p "$OUT"
touch "$OUT/runs.tsv"

# one run: prints "integrator solver cone file verdict detail" (tab-separated)
one() {
  local bin=$1 steps=$2 timeout=$3 i=$4 s=$5 c=$6 f=$7 out rc err verdict detail
  err=$(mktemp)
  out=$(timeout "$timeout" "$bin" diff "$f" --route native --steps "$steps" --integrator "$i" \
        --solver "$s" --cone "$c" --json 2>"$err")
  rc=$?
  case $rc in
    0) verdict=match; detail=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("stopped") or "")') ;;
    1) verdict=differ; detail=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); f=d["first"]; print("step %s %s[%s] native %r c %r" % (f["step"], f["field"], f["index"], f["native"], f["c"]))') ;;
    2) verdict=refused; detail=$(head -c 400 "$err" | tr '\n\t' '  ') ;;
    124) verdict=timeout; detail="over ${timeout}s" ;;
    *) verdict=error; detail="exit $rc: $(head -c 300 "$err" | tr '\n\t' '  ')" ;;
  esac
  rm -f "$err"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$s" "$c" "$f" "$verdict" "$detail"
}
export -f one

FILES=$( (find "$CORPUS" -name '*.xml'; ls "$ROOT"/scenes/*.xml) | sort)
for i in $INTEGRATORS; do for s in $SOLVERS; do for c in $CONES; do for f in $FILES; do
  printf '%s\t%s\t%s\t%s\n' "$i" "$s" "$c" "$f"
done; done; done; done |
  awk -F'\t' 'FILENAME != "-" {done[$1 FS $2 FS $3 FS $4]=1; next} !(($1 FS $2 FS $3 FS $4) in done)' "$OUT/runs.tsv" - |
  tr '\t' '\n' |
  xargs -r -d '\n' -n 4 -P "$JOBS" bash -c 'one "$@"' _ "$BIN" "$STEPS" "$TIMEOUT" >> "$OUT/runs.tsv"

python3 - "$OUT/runs.tsv" <<'PY'
import sys, collections, re
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
table = collections.OrderedDict()
why = collections.Counter()
differ = []
for i, s, c, f, v, d in rows:
    table.setdefault((i, s, c), collections.Counter())[v] += 1
    if v == 'refused':
        # what the route lacks, as it says it, with counts and ids made N
        m = re.search(r'does not implement (.*)', d)
        reason = re.sub(r'\d+', 'N', m.group(1) if m else d.split(': ', 1)[-1]).strip()
        why[('/'.join(f.split('/')[-2:]), reason[:150])] += 1
    elif v not in ('match',):
        differ.append((i, s, c, '/'.join(f.split('/')[-2:]), v, d[:150]))
print('%-12s %-7s %-10s %6s %6s %7s %7s %5s' % ('integrator', 'solver', 'cone', 'match', 'differ', 'refused', 'timeout', 'error'))
tot = collections.Counter()
for (i, s, c), n in table.items():
    tot.update(n)
    print('%-12s %-7s %-10s %6d %6d %7d %7d %5d' % (i, s, c, n['match'], n['differ'], n['refused'], n['timeout'], n['error']))
print('%-31s %6d %6d %7d %7d %5d' % ('total', tot['match'], tot['differ'], tot['refused'], tot['timeout'], tot['error']))
print('\nrefusals by file and reason (option sets):')
for (f, r), v in sorted(why.items()):
    print('%4d  %-40s %s' % (v, f, r))
print('\nnot matching:')
for r in differ:
    print('  ' + ' '.join(r))
PY
