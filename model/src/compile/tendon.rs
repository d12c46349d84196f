//! Tendons: the `tendon_*`, `wrap_*` and `ten_J_*` arrays of MuJoCo 4.0.0's compiler for fixed
//! tendons (a weighted sum of joint positions) and spatial tendons (a path of sites, wrapping
//! spheres and cylinders, and pulleys), with class defaults (`docs/measurements.md` D45, D58,
//! M10).
//!
//! MuJoCo fills part of these arrays in `mj_setConst` rather than in the compiler proper: the
//! trees a tendon touches (`tendon_treenum`, `tendon_treeid`: the distinct trees of the path
//! objects' bodies in path order), the sparsity of the tendon Jacobian (fixed: one column per
//! path joint's first dof; spatial: every dof of every ancestor of a site's or wrapping geom's
//! body; sorted), `tendon_length0` (the length at `qpos0`) and `tendon_lengthspring` when not
//! given (the length at `qpos_spring`). A fixed tendon's length is `0 + c_0 q_0 + c_1 q_1 + ...`
//! in path order, as `mj_tendon` sums it. A spatial tendon's lengths need the site and geom
//! poses and the wrapping: the compiler leaves them at 0 and -1 with
//! [`Model::tendon_length_pending`] set, and `specula_native` (which has the kinematics) fills
//! them.
//!
//! Tendons copied by `replicate` or brought by `attach` are compiled from their copies
//! ([`super::copies`]). Not compiled (the arrays stay empty, [`Model::tendon_unsupported`] says
//! why): copies whose references name no object of the tree, per-tendon `user` data, and
//! tendon transmissions that add armature or damping (they set `tendon_actuatorid`). `tendon_invweight0` needs the inertia at
//! `qpos0` and is computed with the other `mj_setConst` constants by the native route.

use super::attrs::{err_at, Res};
use super::copies::{references, Placed};
use super::ranges::numbers;
use super::spec::Defaults;
use super::tree::Source;
use crate::model::Model;
use crate::types::GeomType;
use crate::xml::Element;

/// `mjWRAP_JOINT`.
pub const WRAP_JOINT: i32 = 1;
/// `mjWRAP_PULLEY`.
pub const WRAP_PULLEY: i32 = 2;
/// `mjWRAP_SITE`.
pub const WRAP_SITE: i32 = 3;
/// `mjWRAP_SPHERE`.
pub const WRAP_SPHERE: i32 = 4;
/// `mjWRAP_CYLINDER`.
pub const WRAP_CYLINDER: i32 = 5;

/// `mjLIMITED_FALSE`, `mjLIMITED_TRUE`, `mjLIMITED_AUTO`.
#[derive(Clone, Copy, PartialEq)]
enum Limited {
    False,
    True,
    Auto,
}

/// One path object: `mjtWrap` type, object id, parameter.
type Wrap = (i32, i32, f64);

/// One compiled tendon before it is stored.
struct Tendon {
    path: Vec<Wrap>,
    matid: i32,
    group: i32,
    limited: bool,
    actfrclimited: bool,
    width: f64,
    solref_lim: [f64; 2],
    solimp_lim: [f64; 5],
    solref_fri: [f64; 2],
    solimp_fri: [f64; 5],
    range: [f64; 2],
    actfrcrange: [f64; 2],
    margin: f64,
    stiffness: [f64; 3],
    damping: [f64; 3],
    armature: f64,
    frictionloss: f64,
    springlength: [f64; 2],
    springyield: f64,
    rgba: [f32; 4],
}

/// MuJoCo's default solref and solimp.
const SOLREF: [f64; 2] = [0.02, 1.0];
const SOLIMP: [f64; 5] = [0.9, 0.95, 0.001, 0.5, 2.0];

/// Reads `attr` (element, else class default) into the first entries of `dst`.
fn fill<const N: usize>(t: &Element, defs: &Defaults, class: usize, attr: &str, dst: &mut [f64; N]) -> usize {
    let v = numbers(t, defs, class, "tendon", attr).unwrap_or_default();
    for (d, x) in dst.iter_mut().zip(&v) {
        *d = *x;
    }
    v.len().min(N)
}

/// The `limited`-style keyword of `attr` (element, else class default).
fn limited_flag(t: &Element, defs: &Defaults, class: usize, attr: &str, default: Limited) -> Limited {
    let raw = t.attr(attr).map(|a| a.value.as_str()).or_else(|| defs.classes.get(class)?.raw_attr("tendon", attr));
    match raw {
        Some("true") => Limited::True,
        Some("false") => Limited::False,
        Some("auto") => Limited::Auto,
        _ => default,
    }
}

/// Whether a `limited` flag is on: `auto` is on with autolimits and a range with `lo < hi`.
fn is_limited(flag: Limited, range: [f64; 2], autolimits: bool) -> bool {
    match flag {
        // a proper interval, as for joints and actuators (a reversed or empty range: unlimited)
        Limited::Auto => autolimits && range[0] < range[1],
        f => f == Limited::True,
    }
}

/// The path of a `spatial` tendon: sites, wrapping geoms (side site id or -1), pulleys.
fn spatial_path(t: &Element, m: &Model) -> Res<Vec<Wrap>> {
    let find = |names: &[String], w: &Element, attr: &str, what: &str| -> Res<usize> {
        let name = w.attr(attr).map_or("", |a| a.value.as_str());
        names.iter().rposition(|n| n == name).ok_or_else(|| err_at(w, format!("unknown {what} '{name}' in tendon")))
    };
    let mut path = Vec::new();
    for w in &t.children {
        match w.name.as_str() {
            "site" => path.push((WRAP_SITE, find(&m.site_names, w, "site", "site")? as i32, 0.0)),
            "geom" => {
                let g = find(&m.geom_names, w, "geom", "geom")?;
                let kind = if m.geom_type[g] == GeomType::Sphere { WRAP_SPHERE } else { WRAP_CYLINDER };
                let side = match w.attr("sidesite").filter(|a| !a.value.is_empty()) {
                    Some(_) => find(&m.site_names, w, "sidesite", "side site")? as f64,
                    None => -1.0,
                };
                path.push((kind, g as i32, side));
            }
            "pulley" => {
                let div = w.attr("divisor").and_then(|a| crate::xml::values::parse_real(a.value.trim()).ok());
                path.push((WRAP_PULLEY, -1, div.unwrap_or(0.0)));
            }
            _ => {}
        }
    }
    Ok(path)
}

/// Reads one `fixed` or `spatial` tendon, or says why it is outside the compiled subset.
fn read_tendon(
    t: &Element,
    defs: &Defaults,
    autolimits: bool,
    m: &Model,
    materials: &[String],
) -> Res<Result<Tendon, String>> {
    let class = defs.class_of(t, 0)?;
    if numbers(t, defs, class, "tendon", "user").is_some() {
        return Ok(Err("tendon user data".into()));
    }
    let mut path = Vec::new();
    if t.name == "spatial" {
        path = spatial_path(t, m)?;
    }
    for w in t.children.iter().filter(|w| w.name == "joint") {
        let name = w.attr("joint").map_or("", |a| a.value.as_str());
        let Some(j) = m.jnt_names.iter().rposition(|n| n == name) else {
            return Err(err_at(w, format!("unknown joint '{name}' in tendon")));
        };
        let coef = w.attr("coef").and_then(|a| crate::xml::values::parse_real(a.value.trim()).ok()).unwrap_or(0.0);
        path.push((WRAP_JOINT, j as i32, coef));
    }
    let matid = match t
        .attr("material")
        .map(|a| a.value.as_str())
        .or_else(|| defs.classes[class].raw_attr("tendon", "material"))
    {
        None | Some("") => -1,
        Some(name) => match materials.iter().position(|n| n == name) {
            Some(i) => i as i32,
            None => return Err(err_at(t, format!("material '{name}' not found in tendon"))),
        },
    };
    let group = numbers(t, defs, class, "tendon", "group").map_or(0, |v| v[0] as i32);
    let mut x = Tendon {
        path,
        matid,
        group,
        limited: false,
        actfrclimited: false,
        width: 0.003,
        solref_lim: SOLREF,
        solimp_lim: SOLIMP,
        solref_fri: SOLREF,
        solimp_fri: SOLIMP,
        range: [0.0; 2],
        actfrcrange: [0.0; 2],
        margin: 0.0,
        stiffness: [0.0; 3],
        damping: [0.0; 3],
        armature: 0.0,
        frictionloss: 0.0,
        springlength: [-1.0; 2],
        springyield: 0.0,
        rgba: [0.5, 0.5, 0.5, 1.0],
    };
    let one = |attr: &str, dst: &mut f64| {
        let mut a = [*dst];
        fill(t, defs, class, attr, &mut a);
        *dst = a[0];
    };
    one("width", &mut x.width);
    one("margin", &mut x.margin);
    one("armature", &mut x.armature);
    one("frictionloss", &mut x.frictionloss);
    one("springyield", &mut x.springyield);
    if x.springyield < 0.0 {
        return Err(err_at(t, "springyield cannot be negative in tendon".to_string()));
    }
    fill(t, defs, class, "solreflimit", &mut x.solref_lim);
    fill(t, defs, class, "solimplimit", &mut x.solimp_lim);
    fill(t, defs, class, "solreffriction", &mut x.solref_fri);
    fill(t, defs, class, "solimpfriction", &mut x.solimp_fri);
    fill(t, defs, class, "range", &mut x.range);
    fill(t, defs, class, "actuatorfrcrange", &mut x.actfrcrange);
    fill(t, defs, class, "stiffness", &mut x.stiffness);
    fill(t, defs, class, "damping", &mut x.damping);
    if fill(t, defs, class, "springlength", &mut x.springlength) == 1 {
        x.springlength[1] = x.springlength[0];
    }
    let mut rgba = [0.5, 0.5, 0.5, 1.0];
    fill(t, defs, class, "rgba", &mut rgba);
    x.rgba = rgba.map(|v| v as f32);
    x.limited = is_limited(limited_flag(t, defs, class, "limited", Limited::Auto), x.range, autolimits);
    // auto by default in 4.0.0 (measured: `actuatorfrcrange` alone clamps, tests/tendon_cases/fixed.xml)
    let flag = limited_flag(t, defs, class, "actuatorfrclimited", Limited::Auto);
    x.actfrclimited = is_limited(flag, x.actfrcrange, autolimits);
    Ok(Ok(x))
}

/// Why the tendons are outside the compiled subset, if they are: `tendons` are the tendon
/// elements, `actuators` the actuator elements, each with the defaults of its model.
fn unsupported(tendons: &[Placed], actuators: &[Placed], sources: &[Source], m: &Model) -> Option<String> {
    if tendons.len() != m.ntendon {
        return Some("tendons added or copied by replicate or attach".into());
    }
    // a copy whose references do not name objects of the tree (a replicate inside a replicate)
    for t in tendons.iter().filter(|t| t.copied) {
        for (attr, name) in references(&t.el) {
            let names = match attr {
                "site" | "sidesite" => &m.site_names,
                "geom" => &m.geom_names,
                "joint" => &m.jnt_names,
                _ => return Some(format!("a tendon copied by replicate or attach refers to a {attr}")),
            };
            if !names.iter().any(|n| n == name) {
                return Some(format!("a tendon copied by replicate or attach names {attr} '{name}' not in the tree"));
            }
        }
    }
    // an actuator on a tendon with armature or damping sets tendon_actuatorid
    for p in actuators.iter().filter(|p| p.el.attr("tendon").is_some()) {
        let (a, defs) = (&p.el, &sources[p.src].defaults);
        let class = defs.class_of(a, 0).unwrap_or(0);
        let nonzero =
            |attr: &str| numbers(a, defs, class, "actuator", attr).is_some_and(|v| v.iter().any(|&x| x != 0.0));
        if nonzero("armature") || nonzero("damping") || a.name == "damper" {
            return Some("a tendon transmission with armature or damping (tendon_actuatorid)".into());
        }
    }
    None
}

/// Compiles the tendon elements `tendons` into `m` (joints, trees and `qpos0` must be set), each
/// with the defaults and `autolimits` of its model in `sources`, or leaves the arrays empty with
/// `m.tendon_unsupported` set; `actuators` are the actuator elements.
pub fn compile_tendons(
    tendons: &[Placed],
    actuators: &[Placed],
    sources: &[Source],
    autolimits: &[bool],
    materials: &[String],
    m: &mut Model,
) -> Res<()> {
    if let Some(why) = unsupported(tendons, actuators, sources, m) {
        m.tendon_unsupported = Some(why);
        return Ok(());
    }
    let mut compiled = Vec::with_capacity(tendons.len());
    for t in tendons {
        match read_tendon(&t.el, &sources[t.src].defaults, autolimits[t.src], m, materials)? {
            Ok(x) => compiled.push(x),
            Err(why) => {
                m.tendon_unsupported = Some(why);
                return Ok(());
            }
        }
    }
    store(&compiled, m);
    Ok(())
}

/// Length of a fixed tendon at joint positions `q`, summed in path order as `mj_tendon` does.
fn fixed_length(path: &[Wrap], m: &Model, q: &[f64]) -> f64 {
    let mut len = 0.0;
    for &(_, j, coef) in path {
        len += coef * q[m.jnt_qposadr[j as usize]];
    }
    len
}

/// The body of a path object (none for a pulley).
fn wrap_body(w: &Wrap, m: &Model) -> Option<usize> {
    match w.0 {
        WRAP_JOINT => Some(m.jnt_bodyid[w.1 as usize]),
        WRAP_SITE => Some(m.site_bodyid[w.1 as usize]),
        WRAP_SPHERE | WRAP_CYLINDER => Some(m.geom_bodyid[w.1 as usize]),
        _ => None,
    }
}

/// The trees a path touches: how many, and the first two.
fn trees(path: &[Wrap], m: &Model) -> (i32, [i32; 2]) {
    let mut seen: Vec<i32> = Vec::new();
    for w in path {
        let Some(b) = wrap_body(w, m) else { continue };
        let tree = m.body_treeid[b];
        if tree != -1 && !seen.contains(&tree) {
            seen.push(tree);
        }
    }
    (seen.len() as i32, [seen.first().copied().unwrap_or(-1), seen.get(1).copied().unwrap_or(-1)])
}

/// The Jacobian columns of a tendon, sorted: each path joint's first dof (fixed), or every dof
/// of every ancestor of the path's site and geom bodies, each once (spatial).
fn jacobian_columns(path: &[Wrap], m: &Model) -> Vec<i32> {
    let mut cols: Vec<i32> = Vec::new();
    for w in path {
        if w.0 == WRAP_JOINT {
            cols.push(m.jnt_dofadr[w.1 as usize] as i32);
            continue;
        }
        let mut b = wrap_body(w, m).unwrap_or(0);
        while b > 0 {
            for k in 0..m.body_dofnum[b] as i32 {
                let dof = m.body_dofadr[b] + k;
                if !cols.contains(&dof) {
                    cols.push(dof);
                }
            }
            b = m.body_parentid[b];
        }
    }
    cols.sort_unstable();
    cols
}

/// Writes the compiled tendons into `m`'s arrays.
fn store(ts: &[Tendon], m: &mut Model) {
    let mut adr = 0;
    for t in ts {
        m.tendon_adr.push(adr);
        m.tendon_num.push(t.path.len() as i32);
        adr += t.path.len() as i32;
        m.tendon_matid.push(t.matid);
        m.tendon_group.push(t.group);
        m.tendon_actuatorid.push(-1);
        if t.springyield > 0.0 {
            m.tendon_plasticadr.push(m.nplastic as i32);
            m.nplastic += 2;
        } else {
            m.tendon_plasticadr.push(-1);
        }
        let (num, ids) = trees(&t.path, m);
        m.tendon_treenum.push(num);
        m.tendon_treeid.push(ids);
        // the Jacobian's columns, sorted ascending (mj_setConst)
        let cols = jacobian_columns(&t.path, m);
        m.ten_j_rowadr.push(m.ten_j_colind.len() as i32);
        m.ten_j_rownnz.push(cols.len() as i32);
        m.ten_j_colind.extend(cols);
        m.tendon_limited.push(t.limited);
        m.tendon_actfrclimited.push(t.actfrclimited);
        m.tendon_width.push(t.width);
        m.tendon_solref_lim.push(t.solref_lim);
        m.tendon_solimp_lim.push(t.solimp_lim);
        m.tendon_solref_fri.push(t.solref_fri);
        m.tendon_solimp_fri.push(t.solimp_fri);
        m.tendon_range.push(t.range);
        m.tendon_actfrcrange.push(t.actfrcrange);
        m.tendon_margin.push(t.margin);
        m.tendon_stiffness.push(t.stiffness[0]);
        m.tendon_stiffnesspoly.push([t.stiffness[1], t.stiffness[2]]);
        m.tendon_damping.push(t.damping[0]);
        m.tendon_dampingpoly.push([t.damping[1], t.damping[2]]);
        m.tendon_armature.push(t.armature);
        m.tendon_frictionloss.push(t.frictionloss);
        // a spatial tendon's lengths wait for the kinematics (`tendon_length_pending`)
        let fixed = t.path.first().is_none_or(|w| w.0 == WRAP_JOINT);
        m.tendon_length_pending |= !fixed;
        let spring = if t.springlength == [-1.0, -1.0] && fixed {
            let l = fixed_length(&t.path, m, &m.qpos_spring);
            [l, l]
        } else {
            t.springlength
        };
        m.tendon_lengthspring.push(spring);
        m.tendon_springyield.push(t.springyield);
        m.tendon_length0.push(if fixed { fixed_length(&t.path, m, &m.qpos0) } else { 0.0 });
        m.tendon_rgba.push(t.rgba);
        for &(kind, id, prm) in &t.path {
            m.wrap_type.push(kind);
            m.wrap_objid.push(id);
            m.wrap_prm.push(prm);
        }
    }
    m.nwrap = m.wrap_type.len();
    m.njten = m.ten_j_colind.len();
}
