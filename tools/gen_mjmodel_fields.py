# Generates the field tables of src/mj/fields.rs from MuJoCo 4.0.0's mjxmacro.h.
# Usage: python3 tools/gen_mjmodel_fields.py <include>/mujoco/mjxmacro.h out.rs (then add the read() helper).
# Generates src/mj/fields.rs: mjModel's sizes and arrays by name, from MuJoCo 4.0.0's mjxmacro.h.
import re, sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
def block(name):
    out = []; on = False
    for l in lines:
        if re.match(r"#define %s\b" % name, l): on = True; continue
        if on:
            out.append(l)
            if not l.rstrip().endswith("\\"): break
    return out
sizes = [m.group(1) for l in block("MJMODEL_SIZES") for m in [re.match(r"\s*X\(\s*(\w+)\s*\)", l)] if m]
arrays = []
def collect(name):
    for l in block(name):
        m = re.match(r"\s*X(?:NV)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*([\w*+ ]+?)\s*,\s*([\w*+ ]+?)\s*\)", l)
        if m: arrays.append(m.groups()); continue
        m = re.match(r"\s*(MJMODEL_POINTERS_\w+)", l)
        if m: collect(m.group(1))
collect("MJMODEL_POINTERS")
print(len(sizes), len(arrays), file=sys.stderr)
types = {"int": "i32", "mjtNum": "f64", "float": "f32", "mjtByte": "u8", "mjtSize": "i64", "char": None, "mjtBool": "u8"}
def expr(e):
    e = e.strip()
    return re.sub(r"[A-Za-z_]\w*", lambda m: ("(sys::%s as usize)" if m.group(0).startswith("mj") else "(m.%s as usize)") % m.group(0), e)
o = []
o.append("// Generated from MuJoCo 4.0.0's mjxmacro.h (MJMODEL_SIZES, MJMODEL_POINTERS); do not edit by hand.")
o.append("")
o.append("use mujoco_sys as sys;")
o.append("")
o.append("/// The size fields of `mjModel` (`nq`, `nv`, `ngeom`, ...), in header order.")
o.append("pub const SIZES: &[&str] = &[%s];" % ", ".join('"%s"' % s for s in sizes))
o.append("")
o.append("/// The value of size field `name` of `m`.")
o.append("pub fn size(m: &sys::mjModel, name: &str) -> Option<i64> {")
o.append("    Some(match name {")
for s in sizes: o.append('        "%s" => m.%s as i64,' % (s, s))
o.append("        _ => return None,")
o.append("    })")
o.append("}")
o.append("")
o.append("/// The numeric array fields of `mjModel`, in header order.")
names = [a[1] for a in arrays if types.get(a[0])]
o.append("pub const ARRAYS: &[&str] = &[%s];" % ", ".join('"%s"' % n for n in names))
o.append("")
o.append("/// Array `name` of `m` as f64 values and its number of columns.")
o.append("pub fn array(m: &sys::mjModel, name: &str) -> Option<(Vec<f64>, usize)> {")
o.append("    // SAFETY: each pointer holds rows*cols values of its type, as mjxmacro.h declares.")
o.append("    unsafe {")
o.append("        Some(match name {")
for t, n, r, c in arrays:
    if not types.get(t): continue
    if re.fullmatch(r"\d+", c.strip()): cols = c.strip()
    else: cols = expr(c)
    o.append('            "%s" => (read(m.%s, %s * %s), %s),' % (n, n, expr(r), cols, cols))
o.append("            _ => return None,")
o.append("        })")
o.append("    }")
o.append("}")
open(sys.argv[2], "w").write("\n".join(o) + "\n")
