//! Equality constraints (`connect`, `weld`, `joint`): the `eq_*` arrays as MuJoCo 4.0.0's
//! compiler and `mj_setConst` leave them (`docs/measurements.md` M9).
//!
//! Algorithm:
//! 1. Each element starts from MuJoCo's built-in equality (active, default `solref`/`solimp`,
//!    `data[1] = 1` for the polynomial's linear term, `data[10] = 1` for the torque scale), then
//!    takes its class's `active`, `solref` and `solimp` (the only attributes a default sets),
//!    then its own.
//! 2. A `connect` is body-based when it names `body1` and an `anchor`, else site-based; a `weld`
//!    is body-based when it names `body1`. A missing second body is the world.
//! 3. `mj_setConst` at `qpos0`: a body connect's second anchor is its anchor seen from the second
//!    body; a site connect's data is all zeros; a body weld whose relative quaternion is zero
//!    (none given) gets the first body's anchor point and relative pose from `qpos0`, and
//!    `data[11] = 1`; a given quaternion is normalised.
//!
//! Tendon and flex equalities are not compiled: the arrays stay empty and
//! `Model::eq_unsupported` says why (so do equalities changed by `replicate` or `attach`).

use super::attrs::{arr, boolean, err_at, Res};
use super::math::{mulquat, normalize4, quat2mat};
use super::spec::Defaults;
use crate::model::Model;
use crate::xml::Element;

/// `mjEQ_CONNECT`.
pub const CONNECT: i32 = 0;
/// `mjEQ_WELD`.
pub const WELD: i32 = 1;
/// `mjEQ_JOINT`.
pub const JOINT: i32 = 2;
/// `mjOBJ_BODY`.
pub const OBJ_BODY: i32 = 1;
/// `mjOBJ_SITE`.
pub const OBJ_SITE: i32 = 6;

/// One equality as the compiler holds it before `mj_setConst`.
#[derive(Clone, Debug)]
struct Eq {
    ty: i32,
    objtype: i32,
    obj: [i32; 2],
    active: bool,
    solref: [f64; 2],
    solimp: [f64; 5],
    data: [f64; 12],
}

/// MuJoCo's built-in equality (`mjs_defaultEquality`).
fn builtin() -> Eq {
    let mut data = [0.0; 12];
    data[1] = 1.0;
    data[10] = 1.0;
    Eq {
        ty: CONNECT,
        objtype: 0,
        obj: [-1, -1],
        active: true,
        solref: [0.02, 1.0],
        solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
        data,
    }
}

/// Reads `active`, `solref` and `solimp` from `el` (an equality or its class default).
fn read_base(el: &Element, e: &mut Eq) -> Res<()> {
    boolean(el, "active", &mut e.active)?;
    arr(el, "solref", &mut e.solref, false)?;
    arr(el, "solimp", &mut e.solimp, false)?;
    Ok(())
}

/// The class's `active`, `solref` and `solimp` (as text in the class's raw attributes), read
/// as if written on `el`.
fn read_class(el: &Element, defs: &Defaults, class: usize, e: &mut Eq) -> Res<()> {
    let c = &defs.classes[class];
    let mut d = Element { children: Vec::new(), attrs: Vec::new(), ..el.clone() };
    for a in ["active", "solref", "solimp"] {
        if let Some(v) = c.raw_attr("equality", a) {
            d.attrs.push(crate::xml::Attr { name: a.into(), value: v.into(), pos: el.pos.clone() });
        }
    }
    read_base(&d, e)
}

/// The id of `name` among `names`, or an error at `el`. Names are unique but `''`, which
/// MuJoCo resolves to the last unnamed element (measured with 4.0.0: weld site1="" with two
/// unnamed sites takes the second).
fn find(el: &Element, names: &[String], name: &str) -> Res<i32> {
    names
        .iter()
        .rposition(|n| n == name)
        .map(|i| i as i32)
        .ok_or_else(|| err_at(el, format!("unknown element '{name}' in equality constraint")))
}

/// The value of attribute `a` (empty when absent).
fn text<'a>(el: &'a Element, a: &str) -> Option<&'a str> {
    el.attr(a).map(|v| v.value.as_str())
}

/// Compiles one `connect`, `weld` or `joint` element.
fn compile_one(el: &Element, defs: &Defaults, m: &Model) -> Res<Eq> {
    let mut e = builtin();
    let class = defs.class_of(el, 0)?;
    read_class(el, defs, class, &mut e)?;
    read_base(el, &mut e)?;
    let (names, n1, n2): (&[String], &str, Option<&str>);
    match el.name.as_str() {
        "connect" | "weld" => {
            let weld = el.name == "weld";
            e.ty = if weld { WELD } else { CONNECT };
            let mut anchor = [0.0; 3];
            let has_anchor = arr(el, "anchor", &mut anchor, true)?;
            if has_anchor {
                e.data[..3].copy_from_slice(&anchor);
            }
            if weld {
                let mut relpose = [0.0; 7];
                if arr(el, "relpose", &mut relpose, true)? {
                    e.data[3..10].copy_from_slice(&relpose);
                }
            }
            let body = text(el, "body1").is_some() && (weld || has_anchor);
            if body {
                e.objtype = OBJ_BODY;
                if weld && !has_anchor {
                    e.data[..3].fill(0.0);
                }
                (names, n1, n2) = (&m.body_names, text(el, "body1").unwrap_or(""), text(el, "body2"));
            } else {
                e.objtype = OBJ_SITE;
                (names, n1, n2) = (&m.site_names, text(el, "site1").unwrap_or(""), text(el, "site2"));
            }
            if weld {
                let mut ts = [e.data[10]];
                arr(el, "torquescale", &mut ts, true)?;
                e.data[10] = ts[0];
            }
        }
        "joint" => {
            e.ty = JOINT;
            let mut poly = [0.0, 1.0, 0.0, 0.0, 0.0];
            arr(el, "polycoef", &mut poly, false)?;
            e.data[..5].copy_from_slice(&poly);
            (names, n1, n2) = (&m.jnt_names, text(el, "joint1").unwrap_or(""), text(el, "joint2"));
        }
        other => return Err(err_at(el, format!("{other} equality constraints are not compiled by specula yet"))),
    }
    e.obj[0] = find(el, names, n1)?;
    e.obj[1] = match n2.filter(|n| !n.is_empty()) {
        Some(n) => find(el, names, n)?,
        None if e.objtype == OBJ_BODY => 0,
        None => -1,
    };
    if e.obj[0] == e.obj[1] {
        return Err(err_at(el, format!("element '{n1}' is repeated in equality constraint")));
    }
    Ok(e)
}

/// World pose of every body at `qpos0` (position, quaternion, rotation matrix).
type Poses = (Vec<[f64; 3]>, Vec<[f64; 4]>, Vec<[f64; 9]>);

/// `mat * v`.
fn mul_mat_vec(mat: &[f64; 9], v: &[f64]) -> [f64; 3] {
    [
        mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
        mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
        mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2],
    ]
}

/// `mat' * v`.
fn mul_mat_t_vec(mat: &[f64; 9], v: &[f64; 3]) -> [f64; 3] {
    [
        mat[0] * v[0] + mat[3] * v[1] + mat[6] * v[2],
        mat[1] * v[0] + mat[4] * v[1] + mat[7] * v[2],
        mat[2] * v[0] + mat[5] * v[1] + mat[8] * v[2],
    ]
}

/// `local` on body `b`, seen from body `other`'s frame.
fn point_in(p: &Poses, b: usize, local: &[f64], other: usize) -> [f64; 3] {
    let w = mul_mat_vec(&p.2[b], local);
    let d = [w[0] + p.0[b][0] - p.0[other][0], w[1] + p.0[b][1] - p.0[other][1], w[2] + p.0[b][2] - p.0[other][2]];
    mul_mat_t_vec(&p.2[other], &d)
}

/// `mj_setConst`'s part for one equality (step 3 of the module's algorithm).
fn set_const(e: &mut Eq, poses: &mut Option<Poses>, m: &Model) {
    if e.objtype == OBJ_SITE {
        if e.ty == CONNECT {
            e.data = [0.0; 12];
        }
        return;
    }
    if e.ty != CONNECT && e.ty != WELD {
        return;
    }
    if e.ty == WELD {
        let mut q = [e.data[6], e.data[7], e.data[8], e.data[9]];
        if q.iter().any(|&x| x != 0.0) {
            normalize4(&mut q);
            e.data[6..10].copy_from_slice(&q);
            return;
        }
    }
    let p = poses.get_or_insert_with(|| {
        let (xpos, xquat) = super::springdamper::body_poses(m);
        let xmat = xquat.iter().map(quat2mat).collect();
        (xpos, xquat, xmat)
    });
    let (b1, b2) = (e.obj[0] as usize, e.obj[1] as usize);
    if e.ty == CONNECT {
        let v = point_in(p, b1, &e.data[..3], b2);
        e.data[3..6].copy_from_slice(&v);
    } else {
        let v = point_in(p, b2, &e.data[..3], b1);
        e.data[3..6].copy_from_slice(&v);
        let q1 = p.1[b1];
        let q = mulquat(&[q1[0], -q1[1], -q1[2], -q1[3]], &p.1[b2]);
        e.data[6..10].copy_from_slice(&q);
        e.data[11] = 1.0;
    }
}

/// Compiles the `equality` sections of `root` into `m` (its names and `neq` already set).
pub fn compile_equalities(root: &Element, defs: &Defaults, m: &mut Model) -> Res<()> {
    let els: Vec<&Element> =
        root.children.iter().filter(|c| c.name == "equality").flat_map(|s| s.children.iter()).collect();
    let direct: Vec<String> = els.iter().map(|c| c.attr("name").map(|a| a.value.clone()).unwrap_or_default()).collect();
    if direct != m.eq_names {
        m.eq_unsupported = Some("equalities changed by replicate or attach".into());
        return Ok(());
    }
    if let Some(el) = els.iter().find(|c| !matches!(c.name.as_str(), "connect" | "weld" | "joint")) {
        m.eq_unsupported = Some(format!("{} equality '{}'", el.name, text(el, "name").unwrap_or("")));
        return Ok(());
    }
    let mut eqs = Vec::with_capacity(els.len());
    for el in &els {
        eqs.push(compile_one(el, defs, m)?);
    }
    let mut poses = None;
    for e in &mut eqs {
        set_const(e, &mut poses, m);
    }
    m.eq_type = eqs.iter().map(|e| e.ty).collect();
    m.eq_obj1id = eqs.iter().map(|e| e.obj[0]).collect();
    m.eq_obj2id = eqs.iter().map(|e| e.obj[1]).collect();
    m.eq_objtype = eqs.iter().map(|e| e.objtype).collect();
    m.eq_active0 = eqs.iter().map(|e| u8::from(e.active)).collect();
    m.eq_solref = eqs.iter().map(|e| e.solref).collect();
    m.eq_solimp = eqs.iter().map(|e| e.solimp).collect();
    m.eq_data = eqs.iter().map(|e| e.data).collect();
    Ok(())
}
