//! Body compilation: orientation, geoms, inertia from geoms (parallel axes, then principal
//! axes), mass and inertia bounds, frames, joints and sites.

use super::attrs::Res;
use super::geom::{compile_geom, compile_site, CGeom, CSite, MeshCtx};
use super::math::{
    frame_accum, frame_accum_child, frame_invert, full_inertia, global_inertia, mj_max, normvec, offcenter,
    rot_vec_quat, EPS, PI, QUNIT,
};
use super::orient::{resolve, AngleConv};
use super::spec::JointSpec;
use super::tree::{BodyItem, Item};
use crate::error::MjcfError;
use crate::types::JointType;

/// Compiler settings (MuJoCo's `mjsCompiler`) that influence compiled numbers.
#[derive(Clone, Debug)]
pub struct CompilerSettings {
    /// Angle units and Euler sequence.
    pub conv: AngleConv,
    /// Infer `limited` from `range`.
    pub autolimits: bool,
    /// Lower bound on body mass.
    pub boundmass: f64,
    /// Lower bound on body inertia.
    pub boundinertia: f64,
    /// Rescale masses to this total when positive.
    pub settotalmass: f64,
    /// Replace impossible inertias by their mean.
    pub balanceinertia: bool,
    /// 0 false, 1 true, 2 auto.
    pub inertiafromgeom: u8,
    /// Geom groups used for inertia.
    pub inertiagrouprange: [i32; 2],
    /// Align free bodies with their inertial frame.
    pub alignfree: bool,
    /// Mesh directory.
    pub meshdir: String,
    /// Texture directory.
    pub texturedir: String,
    /// Discard visual-only elements.
    pub discardvisual: bool,
    /// Fuse static bodies into their parents.
    pub fusestatic: bool,
    /// Fit primitives to a mesh's bounding box instead of its inertia box.
    pub fitaabb: bool,
}

impl Default for CompilerSettings {
    fn default() -> Self {
        CompilerSettings {
            conv: AngleConv { degree: true, eulerseq: *b"xyz" },
            autolimits: true,
            boundmass: 0.0,
            boundinertia: 0.0,
            settotalmass: -1.0,
            balanceinertia: false,
            inertiafromgeom: 2,
            inertiagrouprange: [0, 5],
            alignfree: false,
            meshdir: String::new(),
            texturedir: String::new(),
            discardvisual: false,
            fusestatic: false,
            fitaabb: false,
        }
    }
}

/// A compiled joint.
#[derive(Clone, Debug)]
pub struct CJoint {
    /// Name.
    pub name: String,
    /// Specification (with range/ref converted to radians).
    pub spec: JointSpec,
    /// Limits active.
    pub limited: bool,
    /// Actuator force limits active.
    pub actfrclimited: bool,
    /// Anchor in the body frame.
    pub pos: [f64; 3],
    /// Unit axis in the body frame.
    pub axis: [f64; 3],
}

/// A compiled body.
#[derive(Clone, Debug)]
pub struct CBody {
    /// Name.
    pub name: String,
    /// Parent id.
    pub parent: usize,
    /// Weld id.
    pub weldid: usize,
    /// Mocap.
    pub mocap: bool,
    /// Simple-body optimisation allowed.
    pub simple: bool,
    /// Gravity compensation.
    pub gravcomp: f64,
    /// Position relative to the parent.
    pub pos: [f64; 3],
    /// Orientation relative to the parent.
    pub quat: [f64; 4],
    /// Centre of mass.
    pub ipos: [f64; 3],
    /// Principal axes.
    pub iquat: [f64; 4],
    /// Mass.
    pub mass: f64,
    /// Principal inertia.
    pub inertia: [f64; 3],
    /// OR of geom contypes.
    pub contype: i32,
    /// OR of geom conaffinities.
    pub conaffinity: i32,
    /// Max of geom margin + gap.
    pub margin: f64,
    /// Geoms.
    pub geoms: Vec<CGeom>,
    /// Joints.
    pub joints: Vec<CJoint>,
    /// Sites.
    pub sites: Vec<CSite>,
    /// Degrees of freedom.
    pub dofnum: usize,
    /// Cameras.
    pub ncam: usize,
    /// Lights.
    pub nlight: usize,
}

fn compile_joint(item: &Item<JointSpec>, all: &[CompilerSettings]) -> Res<CJoint> {
    let cs = &all[item.src];
    let mut s = item.spec.clone();
    let err = |m: &str| MjcfError::new(item.pos.clone(), m.to_string());
    let t = s.jtype;
    if (s.springdamper[0] != 0.0 || s.springdamper[1] != 0.0) && (s.springdamper[0] <= 0.0 || s.springdamper[1] <= 0.0)
    {
        return Err(err("when defined, springdamper values must be positive in joint"));
    }
    // (4.0.0, measured: a negative yield first, then any yield on a free joint)
    if s.springyield < 0.0 {
        return Err(err("springyield cannot be negative in joint"));
    }
    if t == JointType::Free && s.springyield > 0.0 {
        return Err(err("springyield should not be defined in free joint"));
    }
    let autolimit_msg = "joint has `range` but not `limited`. set the autolimits=\"true\" compiler option, \
                         specify `limited` explicitly (\"true\" or \"false\"), or remove the `range` attribute.";
    if t == JointType::Free {
        s.limited = 0;
    } else if s.limited == 2 && !cs.autolimits && !(s.range[0] == 0.0 && s.range[1] == 0.0) {
        return Err(err(autolimit_msg));
    }
    let limited = s.limited == 1 || (s.limited == 2 && s.range[0] < s.range[1]);
    if limited {
        if s.range[0] >= s.range[1] && t != JointType::Ball {
            return Err(err("range[0] should be smaller than range[1] in joint"));
        }
        if s.range[0] != 0.0 && t == JointType::Ball {
            return Err(err("range[0] should be 0 in ball joint"));
        }
        if cs.conv.degree && matches!(t, JointType::Hinge | JointType::Ball) {
            for r in s.range.iter_mut() {
                if *r != 0.0 {
                    *r *= PI / 180.0;
                }
            }
        }
    }
    if matches!(t, JointType::Free | JointType::Ball) {
        s.actfrclimited = 0;
    } else if s.actfrclimited == 2 && !cs.autolimits && !(s.actfrcrange[0] == 0.0 && s.actfrcrange[1] == 0.0) {
        return Err(err(autolimit_msg));
    }
    let actfrclimited = s.actfrclimited == 1 || (s.actfrclimited == 2 && s.actfrcrange[0] < s.actfrcrange[1]);
    if actfrclimited && s.actfrcrange[0] >= s.actfrcrange[1] {
        return Err(err("actfrcrange[0] should be smaller than actfrcrange[1] in joint"));
    }
    let mut axis = s.axis;
    if matches!(t, JointType::Free | JointType::Ball) {
        axis = [0.0, 0.0, 1.0];
    } else if let Some(f) = item.frame {
        axis = rot_vec_quat(&axis, &f.quat);
    }
    if normvec(&mut axis) < EPS {
        return Err(err("axis too small in joint"));
    }
    let mut pos = s.pos;
    if t == JointType::Free {
        pos = [0.0; 3];
    } else if let Some(f) = item.frame {
        let mut q = QUNIT;
        frame_accum_child(&f.pos, &f.quat, &mut pos, &mut q);
    }
    if t == JointType::Hinge && cs.conv.degree {
        s.refpos *= PI / 180.0;
        s.springref *= PI / 180.0;
    }
    // a rotational yield is an angle
    if matches!(t, JointType::Hinge | JointType::Ball) && cs.conv.degree {
        s.springyield *= PI / 180.0;
    }
    Ok(CJoint { name: item.name.clone(), spec: s, limited, actfrclimited, pos, axis })
}

/// Combines the geoms' masses and inertias into the body's (centre of mass, then principal
/// axes of the summed inertia); leaves the body untouched when no geom has mass.
fn inertia_from_geoms(b: &mut CBody, cs: &CompilerSettings, err: &dyn Fn(&str) -> MjcfError) -> Res<()> {
    let range = cs.inertiagrouprange;
    let sel: Vec<&CGeom> =
        b.geoms.iter().filter(|g| g.spec.group >= range[0] && g.spec.group <= range[1] && g.mass > EPS).collect();
    if sel.len() == 1 {
        b.ipos = sel[0].pos;
        b.iquat = sel[0].quat;
        b.mass = sel[0].mass;
        b.inertia = sel[0].inertia;
    } else if sel.len() > 1 {
        let mut mass = 0.0;
        let mut com = [0.0; 3];
        for g in &sel {
            mass += g.mass;
            com[0] += g.mass * g.pos[0];
            com[1] += g.mass * g.pos[1];
            com[2] += g.mass * g.pos[2];
        }
        if mass < EPS {
            return Err(err("body mass is too small, cannot compute center of mass"));
        }
        b.mass = mass;
        b.ipos = [com[0] / mass, com[1] / mass, com[2] / mass];
        let mut toti = [0.0; 6];
        for g in &sel {
            let d = [g.pos[0] - b.ipos[0], g.pos[1] - b.ipos[1], g.pos[2] - b.ipos[2]];
            let i0 = global_inertia(&g.inertia, &g.quat);
            let i1 = offcenter(g.mass, &d);
            for j in 0..6 {
                toti[j] = toti[j] + i0[j] + i1[j];
            }
        }
        let axes =
            full_inertia(&toti, false).map_err(|e| err(&format!("error '{e}' in alternative for principal axes")))?;
        if let Some((q, d)) = axes {
            b.iquat = q;
            b.inertia = d;
        }
    }
    Ok(())
}

/// Compiles body `id` of `items`; `weldid` comes from the already-compiled parent.
pub fn compile_body(
    id: usize,
    it: &BodyItem,
    weldid: usize,
    static_weld: bool,
    all: &[CompilerSettings],
    meshes: &MeshCtx,
) -> Res<CBody> {
    let cs = &all[it.src];
    let err = |m: &str| MjcfError::new(it.el_pos.clone(), m.to_string());
    let conv = cs.conv;
    let mut quat = it.quat;
    let mut iquat = it.iquat;
    normvec(&mut quat);
    normvec(&mut iquat);
    resolve(&mut quat, conv, &it.alt).map_err(|e| err(&format!("error '{e}' in frame alternative")))?;
    let mut inertia = it.inertia;
    let full_defined = !it.fullinertia[0].is_nan();
    if full_defined && it.ialt != super::orient::Alt::Quat {
        return Err(err("fullinertia and inertial orientation cannot both be specified"));
    }
    if full_defined && (inertia[0] != 0.0 || inertia[1] != 0.0 || inertia[2] != 0.0) {
        return Err(err("fullinertia and diagonal inertia cannot both be specified"));
    }
    if full_defined {
        let axes = full_inertia(&it.fullinertia, true).map_err(|e| err(&format!("error '{e}' in fullinertia")))?;
        if let Some((q, d)) = axes {
            iquat = q;
            inertia = d;
        }
    }
    resolve(&mut iquat, conv, &it.ialt).map_err(|e| err(&format!("error '{e}' in inertia alternative")))?;

    let mut b = CBody {
        name: it.name.clone(),
        parent: it.parent,
        weldid,
        mocap: it.mocap,
        simple: it.simple,
        gravcomp: it.gravcomp,
        pos: it.pos,
        quat,
        ipos: it.ipos,
        iquat,
        mass: it.mass,
        inertia,
        contype: 0,
        conaffinity: 0,
        margin: 0.0,
        geoms: Vec::new(),
        joints: Vec::new(),
        sites: Vec::new(),
        dofnum: 0,
        ncam: it.ncam,
        nlight: it.nlight,
    };
    for g in &it.geoms {
        let infer = id > 0
            && (!it.explicit_inertial || cs.inertiafromgeom == 1)
            && g.spec.group >= cs.inertiagrouprange[0]
            && g.spec.group <= cs.inertiagrouprange[1];
        b.geoms.push(compile_geom(g, all[g.src].conv, infer, static_weld, meshes)?);
    }
    if id > 0 && (cs.inertiafromgeom == 1 || (b.ipos[0].is_nan() && cs.inertiafromgeom == 2)) {
        inertia_from_geoms(&mut b, cs, &err)?;
    }
    if b.ipos[0].is_nan() {
        // MuJoCo copies the body frame (relative to the parent) into the inertial frame here.
        // An infinite geom mass (centre of mass inf/inf) leaves no inertia, a NaN geom position
        // a NaN one (measured: a box beside a cylinder of infinite length compiles to
        // body_inertia 0, two spheres one at x = NaN to NaN; the rule is read off the outputs)
        b.ipos = b.pos;
        b.iquat = b.quat;
        if b.mass.is_infinite() {
            b.inertia = [0.0; 3];
        }
    }
    if id > 0 {
        // std::max keeps a NaN mass or inertia (measured: mass="nan" on a static body
        // compiles to body_mass NaN; f64::max would give the bound)
        b.mass = super::math::std_max(b.mass, cs.boundmass);
        for x in b.inertia.iter_mut() {
            *x = super::math::std_max(*x, cs.boundinertia);
        }
        if b.mass < 0.0 || b.inertia.iter().any(|&x| x < 0.0) {
            return Err(err("mass and inertia cannot be negative"));
        }
        let i = b.inertia;
        if i[0] + i[1] < i[2] || i[0] + i[2] < i[1] || i[1] + i[2] < i[0] {
            if cs.balanceinertia {
                let m = (i[0] + i[1] + i[2]) / 3.0;
                b.inertia = [m, m, m];
            } else {
                return Err(err("inertia must satisfy A + B >= C; use 'balanceinertia' to fix"));
            }
        }
    }
    if let Some(f) = it.frame {
        frame_accum_child(&f.pos, &f.quat, &mut b.pos, &mut b.quat);
    }
    for g in &b.geoms {
        b.contype |= g.spec.contype;
        b.conaffinity |= g.spec.conaffinity;
        // mjMAX keeps a NaN sum only until a later geom's is compared (measured: margins
        // 0.03, NaN, 0.02 give 0.02)
        b.margin = mj_max(b.margin, g.spec.margin + g.spec.gap);
    }

    let align_free = it.joints.len() == 1
        && it.joints[0].spec.jtype == JointType::Free
        && it.children.is_empty()
        && (it.joints[0].spec.align == 1 || (it.joints[0].spec.align == 2 && cs.alignfree));
    let mut inv = ([0.0; 3], QUNIT);
    if align_free {
        let (ip, iq) = (b.ipos, b.iquat);
        frame_accum(&mut b.pos, &mut b.quat, &ip, &iq);
        inv = frame_invert(&ip, &iq);
        b.ipos = [0.0; 3];
        b.iquat = QUNIT;
        for g in b.geoms.iter_mut() {
            frame_accum_child(&inv.0, &inv.1, &mut g.pos, &mut g.quat);
        }
    }

    for j in &it.joints {
        let cj = compile_joint(j, all)?;
        b.dofnum += cj.spec.jtype.nv();
        b.joints.push(cj);
    }
    if b.dofnum > 6 {
        return Err(err(&format!("more than 6 dofs in body '{}'", b.name)));
    }
    let mut hasball = false;
    for j in &b.joints {
        if matches!(j.spec.jtype, JointType::Ball | JointType::Hinge) && hasball {
            return Err(err(&format!("ball followed by rotation in body '{}'", b.name)));
        }
        hasball |= j.spec.jtype == JointType::Ball;
    }
    if b.mocap && (b.dofnum > 0 || b.parent != 0) {
        return Err(err(&format!("mocap body '{}' is not a fixed child of world", b.name)));
    }
    for s in &it.sites {
        let mut cs_ = compile_site(s, all[s.src].conv)?;
        if align_free {
            frame_accum_child(&inv.0, &inv.1, &mut cs_.pos, &mut cs_.quat);
        }
        b.sites.push(cs_);
    }
    Ok(b)
}
