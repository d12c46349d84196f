# Generates null_arena_pointers() (src/mj/collision.rs) from MuJoCo 4.0.0's MJDATA_ARENA_POINTERS.
# Usage: python3 tools/gen_arena_pointers.py <include>/mujoco/mjxmacro.h (writes /tmp/arena.rs).
import re, sys
lines = open(sys.argv[1]).read().split("\n")
names = []; on = False
for l in lines:
    if re.match(r"#define MJDATA_ARENA_POINTERS_(CONTACT|SOLVER|DUAL|ISLAND|EFM)\b", l):
        on = True; continue
    if on:
        m = re.match(r"\s*X(?:NV)?\s*\(\s*\w+\s*,\s*(\w+)\s*,", l)
        if m: names.append(m.group(1))
        if not l.rstrip().endswith("\\"): on = False
print(len(names))
out = ["/// Sets every arena pointer of `mjData` to null (MuJoCo 4.0.0's `MJDATA_ARENA_POINTERS`, mjxmacro.h).",
       "pub(crate) fn null_arena_pointers(d: &mut sys::mjData) {"]
for n in names: out.append("    d.%s = std::ptr::null_mut();" % n)
out.append("}")
open("/tmp/arena.rs", "w").write("\n".join(out) + "\n")
