//! Laying compiled bodies out into [`Model`]'s flat arrays: addresses, tree ids, the
//! simple-body flags, frame-alignment flags, contact pairs and excludes.

use super::attrs::Res;
use super::body::CBody;
use super::contact::{RawExclude, RawPair};
use super::keyframe::compile_keys;
use super::math::{EPS, QUNIT};
use super::tree::BodyItem;
use super::Extras;
use crate::error::MjcfError;
use crate::model::Model;
use crate::types::{JointType, SameFrame};

/// Frames closer than this (element-wise) count as equal, as in MuJoCo's compiler.
const FRAME_EPS: f64 = 1e-6;

fn same_vec(a: &[f64; 3], b: &[f64; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() < FRAME_EPS)
}

/// Equal quaternions up to sign.
fn same_quat(a: &[f64; 4], b: &[f64; 4]) -> bool {
    (0..4).all(|i| (a[i] - b[i]).abs() < FRAME_EPS) || (0..4).all(|i| (a[i] + b[i]).abs() < FRAME_EPS)
}

/// Frame alignment of an element pose against the body and its inertial frame.
fn sameframe(pos: &[f64; 3], quat: &[f64; 4], ipos: &[f64; 3], iquat: &[f64; 4]) -> SameFrame {
    if same_vec(pos, &[0.0; 3]) && same_quat(quat, &QUNIT) {
        SameFrame::Body
    } else if same_quat(quat, &QUNIT) {
        SameFrame::BodyRot
    } else if same_vec(pos, ipos) && same_quat(quat, iquat) {
        SameFrame::Inertia
    } else if same_quat(quat, iquat) {
        SameFrame::InertiaRot
    } else {
        SameFrame::None
    }
}

/// Recomputes `body_subtreemass` from `body_mass` (children before parents).
pub fn subtree_mass(m: &mut Model) {
    m.body_subtreemass = m.body_mass.clone();
    for i in (1..m.nbody).rev() {
        let p = m.body_parentid[i];
        m.body_subtreemass[p] += m.body_subtreemass[i];
    }
}

/// Builds the model arrays from compiled bodies.
pub fn assemble(bodies: &[CBody], items: &[BodyItem], ex: &Extras) -> Res<Model> {
    let mut m = Model { model_name: ex.model_name.clone(), ..Default::default() };
    m.nbody = bodies.len();
    let mut lastdof: Vec<i32> = vec![-1; m.nbody];
    let mut qposadr = 0;
    let mut nmocap = 0;
    for (i, b) in bodies.iter().enumerate() {
        let it = &items[i];
        let par = b.parent;
        m.body_names.push(b.name.clone());
        m.body_parentid.push(par);
        m.body_weldid.push(b.weldid);
        if b.mocap {
            m.body_mocapid.push(nmocap);
            nmocap += 1;
        } else {
            m.body_mocapid.push(-1);
        }
        m.body_jntnum.push(b.joints.len());
        m.body_jntadr.push(if b.joints.is_empty() { -1 } else { m.njnt as i32 });
        m.body_dofnum.push(b.dofnum);
        m.body_dofadr.push(if b.dofnum > 0 { m.nv as i32 } else { -1 });
        m.body_geomnum.push(b.geoms.len());
        m.body_geomadr.push(if b.geoms.is_empty() { -1 } else { m.ngeom as i32 });
        m.body_pos.push(b.pos);
        m.body_quat.push(b.quat);
        m.body_ipos.push(b.ipos);
        m.body_iquat.push(b.iquat);
        m.body_mass.push(b.mass);
        m.body_inertia.push(b.inertia);
        m.body_gravcomp.push(b.gravcomp);
        m.body_contype.push(b.contype);
        m.body_conaffinity.push(b.conaffinity);
        m.body_margin.push(b.margin);

        let nfree = b.joints.iter().filter(|j| j.spec.jtype == JointType::Free).count();
        if nfree > 1 || (nfree == 1 && b.joints.len() > 1) {
            return Err(MjcfError::new(it.el_pos.clone(), "free joint can only appear by itself"));
        }
        if nfree > 0 && i > 0 && par != 0 {
            return Err(MjcfError::new(it.el_pos.clone(), "free joint can only be used on top level"));
        }
        let rootid = if i == 0 || par == 0 { i } else { m.body_rootid[par] };
        m.body_rootid.push(rootid);
        lastdof[i] = if i > 0 { lastdof[par] } else { -1 };

        let sf = if same_vec(&b.ipos, &[0.0; 3]) && same_quat(&b.iquat, &QUNIT) {
            SameFrame::Body
        } else if same_quat(&b.iquat, &QUNIT) {
            SameFrame::BodyRot
        } else {
            SameFrame::None
        };
        m.body_sameframe.push(sf);
        let mut simple =
            u8::from(sf == SameFrame::Body && (rootid == i || (m.body_parentid[par] == 0 && m.body_dofnum[par] == 0)));
        if !b.simple {
            simple = 0;
        }
        m.body_simple.push(simple);
        if par > 0 {
            m.body_simple[par] = 0;
        }

        let mut rotfound = false;
        for j in &b.joints {
            let t = j.spec.jtype;
            m.jnt_names.push(j.name.clone());
            m.jnt_type.push(t);
            m.jnt_group.push(j.spec.group);
            m.jnt_limited.push(j.limited);
            m.jnt_actfrclimited.push(j.actfrclimited);
            m.jnt_actgravcomp.push(j.spec.actgravcomp);
            m.jnt_qposadr.push(qposadr);
            m.jnt_dofadr.push(m.nv);
            m.jnt_bodyid.push(i);
            m.jnt_pos.push(j.pos);
            m.jnt_axis.push(j.axis);
            m.jnt_stiffness.push(j.spec.stiffness[0]);
            m.jnt_springyield.push(j.spec.springyield);
            let slots = match t {
                JointType::Ball => 4,
                JointType::Hinge | JointType::Slide => 1,
                JointType::Free => 0,
            };
            if j.spec.springyield > 0.0 && slots > 0 {
                m.jnt_plasticadr.push(m.nplastic as i32);
                m.nplastic += slots;
            } else {
                m.jnt_plasticadr.push(-1);
            }
            m.jnt_stiffnesspoly.push([j.spec.stiffness[1], j.spec.stiffness[2]]);
            m.jnt_range.push(j.spec.range);
            m.jnt_actfrcrange.push(j.spec.actfrcrange);
            m.jnt_solref.push(j.spec.solref_limit);
            m.jnt_solimp.push(j.spec.solimp_limit);
            m.jnt_margin.push(j.spec.margin);

            let aligned = j.axis.iter().filter(|a| a.abs() > EPS).count() == 1;
            if rotfound
                || !same_vec(&j.pos, &[0.0; 3])
                || (matches!(t, JointType::Hinge | JointType::Slide) && !aligned)
            {
                m.body_simple[i] = 0;
            }
            rotfound |= matches!(t, JointType::Ball | JointType::Hinge);

            match t {
                JointType::Free => {
                    m.qpos0.extend_from_slice(&b.pos);
                    m.qpos0.extend_from_slice(&b.quat);
                    m.qpos_spring.extend_from_slice(&b.pos);
                    m.qpos_spring.extend_from_slice(&b.quat);
                }
                JointType::Ball => {
                    m.qpos0.extend_from_slice(&QUNIT);
                    m.qpos_spring.extend_from_slice(&QUNIT);
                }
                _ => {
                    m.qpos0.push(j.spec.refpos);
                    m.qpos_spring.push(j.spec.springref);
                }
            }
            for _ in 0..t.nv() {
                m.dof_bodyid.push(i);
                m.dof_jntid.push(m.njnt);
                m.dof_solref.push(j.spec.solref_friction);
                m.dof_solimp.push(j.spec.solimp_friction);
                m.dof_frictionloss.push(j.spec.frictionloss);
                m.dof_armature.push(j.spec.armature);
                m.dof_damping.push(j.spec.damping[0]);
                m.dof_dampingpoly.push([j.spec.damping[1], j.spec.damping[2]]);
                m.dof_parentid.push(lastdof[i]);
                lastdof[i] = m.nv as i32;
                m.nv += 1;
            }
            m.njnt += 1;
            qposadr += t.nq();
        }
        if m.body_simple[i] > 0 && m.body_dofnum[i] > 0 {
            let sliders = b.joints.iter().all(|j| j.spec.jtype == JointType::Slide);
            m.body_simple[i] = if sliders { 2 } else { 1 };
        }

        for g in &b.geoms {
            let s = &g.spec;
            m.geom_names.push(g.name.clone());
            m.geom_type.push(s.gtype);
            m.geom_contype.push(s.contype);
            m.geom_conaffinity.push(s.conaffinity);
            m.geom_condim.push(s.condim);
            m.geom_bodyid.push(i);
            m.geom_dataid.push(g.dataid);
            m.geom_matid.push(g.matid);
            m.geom_group.push(s.group);
            m.geom_priority.push(s.priority);
            m.geom_size.push(g.size);
            m.geom_aabb.push(g.aabb);
            m.geom_pos.push(g.pos);
            m.geom_quat.push(g.quat);
            m.geom_friction.push(s.friction);
            m.geom_solmix.push(s.solmix);
            m.geom_solref.push(s.solref);
            m.geom_solimp.push(s.solimp);
            m.geom_margin.push(s.margin);
            m.geom_gap.push(s.gap);
            m.geom_surfacevel.push(s.surfacevel);
            m.geom_adhesion.push(s.adhesion);
            m.geom_fluid.push(super::fluid::geom_fluid(s.fluid_ellipsoid, s.gtype, &g.size, &s.fluidcoef));
            m.geom_rgba.push(s.rgba);
            m.geom_sameframe.push(sameframe(&g.pos, &g.quat, &b.ipos, &b.iquat));
            m.geom_rbound.push(g.rbound);
            m.ngeom += 1;
        }
        for s in &b.sites {
            m.site_names.push(s.name.clone());
            m.site_type.push(s.gtype);
            m.site_bodyid.push(i);
            m.site_group.push(s.group);
            m.site_size.push(s.size);
            m.site_pos.push(s.pos);
            m.site_quat.push(s.quat);
            m.site_sameframe.push(sameframe(&s.pos, &s.quat, &b.ipos, &b.iquat));
            m.nsite += 1;
        }
        m.ncam += b.ncam;
        m.nlight += b.nlight;
    }
    m.nq = qposadr;
    m.nmocap = nmocap as usize;

    // kinematic trees: a new tree starts at every dof without a parent
    let mut ntree = 0;
    for i in 0..m.nv {
        if m.dof_parentid[i] == -1 {
            ntree += 1;
        }
        m.dof_treeid.push(ntree - 1);
    }
    m.ntree = ntree;
    for i in 0..m.nbody {
        let w = m.body_weldid[i];
        m.body_treeid.push(if m.body_dofnum[w] > 0 { m.dof_treeid[m.body_dofadr[w] as usize] as i32 } else { -1 });
    }
    subtree_mass(&mut m);
    trees_and_flags(&mut m);

    m.neq = ex.equalities.len();
    m.eq_names = ex.equalities.clone();
    m.ntendon = ex.tendons.len();
    m.tendon_names = ex.tendons.clone();
    m.nactuator = ex.actuators.len();
    m.nu = ex.nu;
    m.actuator_names = ex.actuators.clone();
    m.na = ex.na;
    m.nsensor = ex.sensors.len();
    m.sensor_names = ex.sensors.clone();

    compile_pairs(&mut m, &ex.pairs)?;
    compile_excludes(&mut m, &ex.excludes)?;
    m.flg_adhesion |= m.pair_adhesion.iter().any(|&a| a != 0.0);
    compile_keys(&mut m, &ex.keys)?;
    Ok(m)
}

/// Tree ranges, sparse mass-matrix row addresses and the `flg_*` flags.
fn trees_and_flags(m: &mut Model) {
    m.tree_bodyadr = vec![usize::MAX; m.ntree];
    m.tree_bodynum = vec![0; m.ntree];
    m.tree_dofadr = vec![usize::MAX; m.ntree];
    m.tree_dofnum = vec![0; m.ntree];
    for b in 0..m.nbody {
        if let Ok(t) = usize::try_from(m.body_treeid[b]) {
            m.tree_bodyadr[t] = m.tree_bodyadr[t].min(b);
            m.tree_bodynum[t] += 1;
        }
    }
    for d in 0..m.nv {
        let t = m.dof_treeid[d];
        m.tree_dofadr[t] = m.tree_dofadr[t].min(d);
        m.tree_dofnum[t] += 1;
    }
    // each dof's row holds itself and all its ancestors
    let mut nm = 0;
    for i in 0..m.nv {
        m.dof_madr.push(nm);
        let mut j = i as i32;
        while j >= 0 {
            nm += 1;
            j = m.dof_parentid[j as usize];
        }
    }
    m.nm = nm;
    m.flg_gravcomp = m.body_gravcomp.iter().any(|&g| g != 0.0);
    m.flg_surfacevel = m.geom_surfacevel.iter().any(|v| v.iter().any(|&x| x != 0.0));
    m.flg_adhesion = m.geom_adhesion.iter().any(|&a| a != 0.0);
}

/// The element named `name`: the name '' is the last unnamed one, as MuJoCo's name map keeps
/// the last element of each name (measured with 4.0.0: an exclude of body2="" beside two unnamed
/// bodies takes the second; a pair's absent geom2 the last unnamed geom).
fn lookup(names: &[String], what: &str, name: &(String, crate::error::Position)) -> Res<usize> {
    names
        .iter()
        .rposition(|n| *n == name.0)
        .ok_or_else(|| MjcfError::new(name.1.clone(), format!("{what} '{}' not found", name.0)))
}

/// Resolves pair geoms (the geom on the lower-numbered body first) and sorts pairs by
/// signature, keeping file order among equal signatures.
fn compile_pairs(m: &mut Model, pairs: &[RawPair]) -> Res<()> {
    let mut resolved = Vec::new();
    for p in pairs {
        let mut g1 = lookup(&m.geom_names, "geom", &p.geom1)?;
        let mut g2 = lookup(&m.geom_names, "geom", &p.geom2)?;
        if m.geom_bodyid[g1] > m.geom_bodyid[g2] {
            std::mem::swap(&mut g1, &mut g2);
        }
        let sig = ((m.geom_bodyid[g1] as i32) << 16) + m.geom_bodyid[g2] as i32;
        resolved.push((sig, g1, g2, p));
    }
    resolved.sort_by_key(|r| r.0);
    for (sig, g1, g2, p) in resolved {
        m.pair_names.push(p.name.clone());
        m.pair_dim.push(p.spec.condim);
        m.pair_geom1.push(g1);
        m.pair_geom2.push(g2);
        m.pair_signature.push(sig);
        let s = unset_from_geoms(m, &p.spec, g1, g2);
        m.pair_solref.push(s.solref);
        m.pair_solreffriction.push(s.solreffriction);
        m.pair_solimp.push(s.solimp);
        m.pair_margin.push(s.margin);
        m.pair_gap.push(s.gap);
        m.pair_adhesion.push(s.adhesion);
        m.pair_friction.push(s.friction);
    }
    m.npair = m.pair_dim.len();
    Ok(())
}

/// A tendon with nonzero armature (NaN included) adds to the mass matrix through its path, so
/// the bodies of its joints, sites and geoms are not simple (measured with MuJoCo 4.0.0: a
/// fixed tendon's joint body, a spatial tendon's site bodies, the world included).
pub fn tendon_armature_bodies(
    m: &mut Model,
    tendons: &[super::copies::Placed],
    sources: &[super::tree::Source],
) -> Res<()> {
    for p in tendons {
        let (t, defs) = (&p.el, &sources[p.src].defaults);
        let class = defs.class_of(t, 0)?;
        let armature = super::ranges::numbers(t, defs, class, "tendon", "armature").map_or(0.0, |v| v[0]);
        if armature == 0.0 {
            continue;
        }
        for w in &t.children {
            let name = |attr: &str| w.attr(attr).map(|a| a.value.as_str());
            let find = |names: &[String], n: Option<&str>| n.and_then(|n| names.iter().rposition(|x| x == n));
            let body = match w.name.as_str() {
                "joint" => find(&m.jnt_names, name("joint")).map(|j| m.jnt_bodyid[j]),
                "site" => find(&m.site_names, name("site")).map(|s| m.site_bodyid[s]),
                "geom" => find(&m.geom_names, name("geom")).map(|g| m.geom_bodyid[g]),
                _ => None,
            };
            if let Some(b) = body {
                m.body_simple[b] = 0;
            }
        }
    }
    Ok(())
}

/// A pair's settings with MuJoCo's unset ones filled from geoms `g1`, `g2`: a NaN first
/// friction, solref or solimp entry takes the geoms' mixed vector, a NaN margin or gap the
/// larger geom value (measured: `docs/measurements.md`, "Pairs with NaN settings").
fn unset_from_geoms(m: &Model, spec: &super::spec::PairSpec, g1: usize, g2: usize) -> super::spec::PairSpec {
    let mut s = spec.clone();
    let mixed = crate::contact::mix_geoms(&crate::geom_contact!(m, g1), &crate::geom_contact!(m, g2));
    if s.friction[0].is_nan() {
        s.friction = mixed.friction;
    }
    if s.solref[0].is_nan() {
        s.solref = mixed.solref;
    }
    if s.solimp[0].is_nan() {
        s.solimp = mixed.solimp;
    }
    if s.margin.is_nan() {
        s.margin = super::math::std_max(m.geom_margin[g1], m.geom_margin[g2]);
    }
    if s.gap.is_nan() {
        s.gap = super::math::std_max(m.geom_gap[g1], m.geom_gap[g2]);
    }
    s
}

/// Resolves excluded body pairs into sorted signatures `(min << 16) + max`.
fn compile_excludes(m: &mut Model, ex: &[RawExclude]) -> Res<()> {
    let mut resolved = Vec::new();
    for e in ex {
        let b1 = lookup(&m.body_names, "body", &e.body1)?;
        let b2 = lookup(&m.body_names, "body", &e.body2)?;
        let (lo, hi) = if b1 > b2 { (b2, b1) } else { (b1, b2) };
        resolved.push((((lo as i32) << 16) + hi as i32, e.name.clone()));
    }
    resolved.sort_by_key(|r| r.0);
    for (sig, name) in resolved {
        m.exclude_signature.push(sig);
        m.exclude_names.push(name);
    }
    m.nexclude = m.exclude_signature.len();
    Ok(())
}
