//! The constants MuJoCo 4.0.0's `mj_setConst` computes in a pass at `qpos0`, from specula's
//! model (`docs/measurements.md` N2 to N4): `dof_M0` (each dof's full diagonal inertia, composite
//! inertias included even for simple dofs), `body_invweight0` and `dof_invweight0` (mean diagonal
//! of `J M^-1 J'` for each body's com Jacobian and each joint's dofs; `1 / mass` for bodies that
//! only translate) and the statistics `meaninertia`, `meanmass`, `meansize`, `extent`, `center`
//! (from the frames at `qpos0`), plus `dof_length`.
//!
//! `tendon_invweight0` is each fixed tendon's `J M^-1 J'` at `qpos0` (`M` with the tendon
//! armature, D59). Not here: `actuator_acc0` and `actuator_length0`; the armature of actuators
//! (in `dof_M0`), which specula's compiler does not produce; and values an MJCF `<statistic>`
//! element overrides (specula's compiler does not read it; the automatic values are returned).

// Indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use specula_engine::dynamics::constraint::jacobian::{jac, JacState};
use specula_engine::dynamics::reference::dot;
use specula_engine::dynamics::{crb, factor_m, solve_ld};
use specula_model::types::GeomType;

use crate::data::Data;
use crate::model::NativeModel;
use crate::step::position;

/// `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// MuJoCo's `mjStatistic` as the compiler computes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statistic {
    /// Mean diagonal inertia at `qpos0`.
    pub meaninertia: f64,
    /// Mean body mass.
    pub meanmass: f64,
    /// Mean body size.
    pub meansize: f64,
    /// Spatial extent.
    pub extent: f64,
    /// Centre of the bounding box at `qpos0`.
    pub center: [f64; 3],
}

/// The constants of the pass at `qpos0`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Consts {
    /// Full diagonal inertia of each dof at `qpos0` (`nv`).
    pub dof_m0: Vec<f64>,
    /// Translational and rotational inverse weight of each body (`2 nbody`).
    pub body_invweight0: Vec<f64>,
    /// Inverse weight of each dof (`nv`).
    pub dof_invweight0: Vec<f64>,
    /// Inverse weight of each tendon: `J M^-1 J'` of its Jacobian row (`ntendon`).
    pub tendon_invweight0: Vec<f64>,
    /// Length scale of each dof: 1 for translations, its body's size for rotations (`nv`).
    pub dof_length: Vec<f64>,
    /// The model statistics.
    pub stat: Statistic,
    /// Norm of `M^-1` times each actuator's moment (`nactuator`; zero for transmissions
    /// outside `mj_transmission`'s subset), a muscle's force scale.
    pub actuator_acc0: Vec<f64>,
    /// Mean over each actuator's outputs of `moment M^-1 moment` (`nactuator`), the inverse of
    /// the mass a damping ratio refers to.
    pub actuator_invmass: Vec<f64>,
}

/// `(a + b) + c` divided by 3: the mean of three diagonal entries, in the library's order.
fn mean3(a: f64, b: f64, c: f64) -> f64 {
    (a + b + c) / 3.0
}

impl Consts {
    /// The constants of `nm` (its layouts must be set; its constants are not read).
    pub fn new(nm: &NativeModel) -> Consts {
        let m = &nm.model;
        let (nv, nbody) = (m.nv, m.nbody);
        let mut d = Data::new(nm);
        position(nm, &mut d);

        // dof_M0: the full (unreduced) inertia's diagonal, every dof through the composite inertias
        let (full, zeros) = (&nm.layout.m_full, vec![0; nv]);
        let mut mfull = vec![0.0; full.nnz()];
        crb(&nm.tree_with(full, &zeros, &[]), &d.cinert, &d.cdof, &mut d.crb, &mut mfull);
        let dof_m0: Vec<f64> = (0..nv).map(|i| mfull[(full.rowadr[i] + full.rownnz[i] - 1) as usize]).collect();

        // the inertia as mj_makeM builds it with those, and its factor
        let tree = nm.tree_with(&nm.layout.m, &nm.layout.dof_simplenum, &dof_m0);
        crb(&tree, &d.cinert, &d.cdof, &mut d.crb, &mut d.m);
        crate::tendon_armature::add(nm, &tree, &d.tendon.ten_j, &mut d.m);
        factor_m(&tree, &d.m, &mut d.qld, &mut d.qld_diag_inv);
        let l = &nm.layout.m;
        let solve = |x: &mut [f64]| solve_ld(x, &d.qld, &d.qld_diag_inv, &l.rownnz, &l.rowadr, &l.colind);
        // A = J M^-1 J' for the `n` rows of `jac` (`n x nv`), row-major `n x n`
        let inverse_weight = |jac: &[f64], n: usize| {
            let mut tmp = jac.to_vec();
            for r in 0..n {
                solve(&mut tmp[r * nv..(r + 1) * nv]);
            }
            let mut a = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    a[i * n + j] = dot(&jac[i * nv..(i + 1) * nv], &tmp[j * nv..(j + 1) * nv]);
                }
            }
            a
        };

        let mut body_invweight0 = vec![0.0; 2 * nbody];
        let jm = nm.jac();
        let js = JacState { cdof: &d.cdof, subtree_com: &d.subtree_com };
        for b in 1..nbody {
            if m.body_dofnum[m.body_weldid[b]] == 0 {
                continue;
            }
            if m.body_simple[b] == 2 {
                body_invweight0[2 * b] = 1.0 / MINVAL.max(m.body_mass[b]);
                continue;
            }
            let mut a = vec![0.0; 36];
            if nv > 0 {
                let mut j6 = vec![0.0; 6 * nv];
                let (jp, jr) = j6.split_at_mut(3 * nv);
                let point = [d.xipos[3 * b], d.xipos[3 * b + 1], d.xipos[3 * b + 2]];
                jac(&jm, &js, jp, Some(jr), &point, b);
                a = inverse_weight(&j6, 6);
            }
            body_invweight0[2 * b] = mean3(a[0], a[7], a[14]);
            body_invweight0[2 * b + 1] = mean3(a[21], a[28], a[35]);
        }

        let mut dof_invweight0 = vec![0.0; nv];
        for j in 0..m.njnt {
            let (b, id) = (m.jnt_bodyid[j], m.jnt_dofadr[j]);
            if m.body_simple[b] == 2 {
                dof_invweight0[id] = 1.0 / MINVAL.max(m.body_mass[b]);
                continue;
            }
            let n = m.jnt_type[j].nv();
            let mut e = vec![0.0; n * nv];
            for k in 0..n {
                e[k * nv + id + k] = 1.0;
            }
            let a = inverse_weight(&e, n);
            match n {
                6 => {
                    let (t, r) = (mean3(a[0], a[7], a[14]), mean3(a[21], a[28], a[35]));
                    dof_invweight0[id..id + 6].copy_from_slice(&[t, t, t, r, r, r]);
                }
                3 => dof_invweight0[id..id + 3].fill(mean3(a[0], a[4], a[8])),
                _ => dof_invweight0[id] = a[0],
            }
        }

        // tendons: the dense Jacobian row, M^-1 times it, their dot product (no dofs: zero)
        // (none for tendons the compiler left out, `tendon_unsupported`)
        let mut tendon_invweight0 = vec![0.0; m.tendon_adr.len()];
        if nv > 0 {
            for (i, w) in tendon_invweight0.iter_mut().enumerate() {
                let mut row = vec![0.0; nv];
                let (adr, nnz) = (m.ten_j_rowadr[i] as usize, m.ten_j_rownnz[i] as usize);
                for k in adr..adr + nnz {
                    row[m.ten_j_colind[k] as usize] = d.tendon.ten_j[k];
                }
                let mut x = row.clone();
                solve(&mut x);
                *w = dot(&row, &x);
            }
        }

        let actuator_acc0 = crate::lengthrange::actuator_acc0(nm, &d, &solve);
        let actuator_invmass = crate::lengthrange::actuator_invmass(nm, &d, &solve);
        let (stat, dof_length) = statistic(nm, &d);
        Consts {
            dof_m0,
            body_invweight0,
            dof_invweight0,
            tendon_invweight0,
            dof_length,
            stat,
            actuator_acc0,
            actuator_invmass,
        }
    }
}

/// Grows the box `(lo, hi)` to hold a ball of radius `r` at `p`.
fn grow(lo: &mut [f64; 3], hi: &mut [f64; 3], p: &[f64], r: f64) {
    for k in 0..3 {
        lo[k] = lo[k].min(p[k] - r);
        hi[k] = hi[k].max(p[k] + r);
    }
}

/// Distance between points `i` of `a` and `j` of `b` (3 entries each).
fn dist(a: &[f64], i: usize, b: &[f64], j: usize) -> f64 {
    let d = [a[3 * i] - b[3 * j], a[3 * i + 1] - b[3 * j + 1], a[3 * i + 2] - b[3 * j + 2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// The statistics and `dof_length` from the frames and inertia at `qpos0` in `d`.
fn statistic(nm: &NativeModel, d: &Data) -> (Statistic, Vec<f64>) {
    let m = &nm.model;
    let (nbody, nv) = (m.nbody, m.nv);
    let (mut lo, mut hi) = ([1e10; 3], [-1e10; 3]);
    for b in 1..nbody {
        grow(&mut lo, &mut hi, &d.xpos[3 * b..], 0.0);
        grow(&mut lo, &mut hi, &d.xipos[3 * b..], 0.0);
    }
    for j in 0..m.njnt {
        grow(&mut lo, &mut hi, &d.xanchor[3 * j..], 0.0);
    }
    for s in 0..m.nsite {
        grow(&mut lo, &mut hi, &d.site_xpos[3 * s..], 0.0);
    }
    for g in 0..m.ngeom {
        let size = &m.geom_size[g];
        let r = if m.geom_rbound[g] > 0.0 {
            m.geom_rbound[g]
        } else if m.geom_type[g] == GeomType::Plane {
            if size[0] != 0.0 || size[1] != 0.0 {
                size[0].max(size[1]) * 0.1
            } else {
                0.01
            }
        } else if m.geom_type[g] == GeomType::Hfield {
            let h = &m.hfield_size[m.geom_dataid[g] as usize];
            h[0].max(h[1].max(h[2].max(h[3]))) * 0.1
        } else {
            0.0
        };
        grow(&mut lo, &mut hi, &d.geom_xpos[3 * g..], r);
    }
    // MuJoCo's defaults (`mj_defaultStatistic`), kept where the model gives nothing to measure
    let mut stat = Statistic {
        center: [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5, (lo[2] + hi[2]) * 0.5],
        extent: 2.0,
        meaninertia: 1.0,
        meanmass: 1.0,
        meansize: 0.2,
    };
    if hi[0] > lo[0] {
        stat.extent = 1e-5f64.max((hi[0] - lo[0]).max((hi[1] - lo[1]).max(hi[2] - lo[2])));
    }
    let mut body = vec![0.0f64; nbody];
    for j in 0..m.njnt {
        let b = m.jnt_bodyid[j];
        body[b] = body[b].max(dist(&d.xipos, b, &d.xanchor, j));
        let p = m.body_parentid[b];
        body[p] = body[p].max(dist(&d.xipos, p, &d.xanchor, j));
    }
    body[0] = 0.0;
    for b in 1..nbody {
        let adr = m.body_geomadr[b].max(0) as usize;
        for g in adr..adr + m.body_geomnum[b] {
            if m.geom_rbound[g] > 0.0 {
                body[b] = body[b].max(m.geom_rbound[g] + dist(&d.xipos, b, &d.geom_xpos, g));
            }
        }
    }
    if nbody > 1 {
        stat.meansize = 0.0;
        for size in &mut body[1..] {
            *size = size.max(1e-5);
            stat.meansize += *size / (nbody - 1) as f64;
        }
    }
    let dof_length = (0..nv)
        .map(|i| {
            let j = m.dof_jntid[i];
            let rotational = match m.jnt_type[j] {
                specula_model::JointType::Slide => false,
                specula_model::JointType::Free => i - m.jnt_dofadr[j] >= 3,
                _ => true,
            };
            if rotational {
                body[m.dof_bodyid[i]]
            } else {
                1.0
            }
        })
        .collect();
    stat.extent = stat.extent.max(2.0 * stat.meansize);
    if nbody > 1 {
        stat.meanmass = m.body_mass[1..].iter().fold(0.0, |s, &x| s + x) / (nbody - 1) as f64;
    }
    if nv > 0 {
        let l = &nm.layout.m;
        stat.meaninertia = (0..nv).fold(0.0, |s, i| s + d.m[(l.rowadr[i] + l.rownnz[i] - 1) as usize]) / nv as f64;
    }
    (stat, dof_length)
}
