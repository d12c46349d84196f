//! Broadphase: the body pairs that may touch, as MuJoCo 4.0's `mj_broadphase` finds them.
//!
//! Algorithm (rigid bodies only):
//! 1. Always-colliding pairs: for the world body (if it has geoms) and for every dof-less body
//!    carrying a plane, pair it with every collidable body that passes the body-pair rules
//!    ([`filter_body_pair`]). No bounding test: planes are infinite.
//! 2. Principal axes: the mean and covariance of the centres of all geoms not on the world body,
//!    and their eigenvectors (`mju_eig3Tol` with tolerance 1e-3, [`eig3_tol`]), give a frame
//!    aligned with the scene's spread. The sweep axes are the eigenvectors, i.e. the *columns*
//!    of the eigenvector matrix (largest eigenvalue first). The Aug-2026 source reads rows;
//!    4.0.0 transposes the matrix after the call (seen in its disassembly) and was measured
//!    to use columns: on a
//!    random scene (override on, two bodies whose boxes are separated along eigenvector 0 only)
//!    the o_margin at which the pair starts colliding, found by bisection with `mj_collision`,
//!    was 0.0129524564, where the column boxes touch (to the f32 rounding of the sweep axis);
//!    the row boxes overlap at every margin.
//! 3. Per collidable non-world body, an axis-aligned box in that frame: per geom the
//!    intersection of its bounding-sphere interval and its rotated local box, padded by the geom's
//!    margin + gap (half the override margin under `override`), united over the body's geoms;
//!    with speculative contacts and native CCD on, a moving geom's box covers its step (S13).
//! 4. Sweep and prune along the first principal axis (end points rounded to `f32` and sorted
//!    with MuJoCo's stable sort, minima before maxima on ties), pruning with the other two axes
//!    in `f64`.
//! 5. Drop pairs the body rules reject, and pairs whose aggregated bitmasks cannot meet.
//! 6. Sort the signatures `(b1 << 16) + b2` (b1 < b2) ascending; duplicates (a pair found in
//!    steps 1 and 4) are left for the driver to skip.

use super::filter::{filter_bitmask, filter_body_pair};
use super::model::{CollisionModel, DSBL_FILTERPARENT, DSBL_NATIVECCD, ENBL_OVERRIDE};
use super::sort::mj_sort;
use super::state::{State, SLEEP_ASLEEP};
use crate::dynamics::avx::avx_dispatch;
use crate::math::{dot3, mul_mat_mat3, mul_mat_t_mat3, mul_mat_vec3, mul_quat, normalize4, quat2mat, transpose3};
use crate::narrowphase::GeomType;
use crate::speculative::sweep::{rotation_radius, swept_interval, Motions};
use std::cmp::Ordering;

/// Flag in a sweep end point marking a box maximum (`id_ismax` of MuJoCo's `mjtSAP`).
const ISMAX: u32 = 0x10000;

/// One sweep end point: the coordinate in single precision, as MuJoCo stores it, and the box
/// index with [`ISMAX`] set for maxima.
#[derive(Clone, Copy, Debug, Default)]
struct SapPoint {
    value: f32,
    id_ismax: u32,
}

/// Scratch buffers of the broadphase, kept between calls so steps do not allocate.
#[derive(Debug, Default)]
pub struct BroadphaseScratch {
    /// Output: body-pair signatures, sorted ascending, possibly repeated.
    pub pairs: Vec<u32>,
    /// Output: MuJoCo's pair buffer would have overflowed (see [`broadphase`]).
    pub overflow: bool,
    ids: Vec<usize>,
    aamm: Vec<[f64; 6]>,
    sweep: Vec<SapPoint>,
    sweep_buf: Vec<SapPoint>,
    active: Vec<SapPoint>,
    sap_pairs: Vec<(usize, usize)>,
    /// The end points' order (`id_ismax`) the last sweep sorted them into: the next call starts
    /// from it (see [`sort_sweep`]).
    order: Vec<u32>,
    /// Per body, the OR of its geoms' `contype` and `conaffinity` (`add_pair`'s test).
    masks: Vec<(i32, i32)>,
    /// Per body, where its bucket of signatures starts (then ends) in [`sort_signatures`].
    bucket: Vec<usize>,
    /// The signatures in bucket order, swapped with `pairs` by [`sort_signatures`].
    pairs_buf: Vec<u32>,
}

/// Relative tolerance the broadphase hands to the eigen-decomposition of the covariance.
///
/// MuJoCo 4.0.0's `mj_collision` calls `mju_eig3Tol(.., 1e-3)` here (read from the released
/// library: the `call mju_eig3Tol` in `mj_collision` is preceded by loading the constant
/// 0.001), not the source's `mju_eig3` with its absolute 1e-12. What made
/// `collision_convex/stacked_boxes.xml` differ is the eigenvalue sort, whose tolerance became
/// relative too (see [`eig3_tol`]): that scene is a 3x3x2 grid of touching boxes, so the x and
/// y variances are nearly equal (6.6666666669e-3 and 6.6666666694e-3 after one step, 4e-13
/// apart). MuJoCo swaps them (4e-13 > 1e-12 * 6.7e-3) and sweeps along y; the absolute 1e-12
/// kept x. The sweep axis compares end points in `f32`, which merges the ~1e-11 gaps between
/// touching boxes, while the other axes compare in `f64` and prune them, so the x and y
/// neighbour pairs traded places (probe: covariance from `mujoco` geom_xpos, decomposed by
/// `mju_eig3Tol` through ctypes).
pub const BROADPHASE_EIG_TOL: f64 = 1e-3;

/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations accumulated in a
/// quaternion, as MuJoCo 4.0.0's `mju_eig3Tol`; returns the eigenvalues (decreasing) and the
/// row-major matrix of that quaternion, whose columns are the eigenvectors.
///
/// Read from the disassembly of the released library (the source we have predates it):
/// - tolerances are relative to `a = max |mat_ij|`: a rotation is made only while the largest
///   off-diagonal entry exceeds `max(tol, 4e-15) * a`, and eigenvalues are swapped only when
///   they differ by more than `1e-12 * a` (`mju_eig3` passes `tol` = 4e-15);
/// - there is no test on the rotation cosine, and the step quaternion comes from the tangent
///   of the half angle, `h = t / (1 + sqrt(1 + t^2))`, as `(1, h) / sqrt(1 + h^2)` (no extra
///   normalisation of the step).
///
/// Checked bit for bit (eigenvalues and matrix) against `mju_eig3Tol` called through ctypes,
/// with a temporary probe binary, on 20000 random symmetric matrices (30 % with two equal or
/// nearly equal eigenvalues, scales 1e-6..1e2, tol 1e-3, 1e-7 or 4e-15): no mismatch.
pub fn eig3_tol(mat: &[f64; 9], tol: f64) -> ([f64; 3], [f64; 9]) {
    let scale = mat.iter().fold(0.0_f64, |m, x| if x.abs() > m { x.abs() } else { m });
    let eps = if tol > 4e-15 { tol } else { 4e-15 } * scale;
    let mut quat = [1.0, 0.0, 0.0, 0.0];
    let mut val = [0.0; 3];
    for _ in 0..500 {
        let vec = quat2mat(&quat);
        let d = mul_mat_mat3(&mul_mat_t_mat3(&vec, mat), &vec);
        val = [d[0], d[4], d[8]];

        // largest off-diagonal entry (rk, ck); the rotation is about the remaining axis rotk
        let (rk, ck, rotk) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = d[3 * rk + ck];
        // the library's test, `eps >= |off|`, lets a NaN entry keep iterating
        if eps >= off.abs() {
            break;
        }

        // 2x2 Schur rotation that zeroes it, as tangent of the angle, then of the half angle
        let tau = (d[4 * ck] - d[4 * rk]) / (off + off);
        let root = (tau * tau + 1.0).sqrt();
        let t = if tau >= 0.0 { 1.0 / (tau + root) } else { -1.0 / (root - tau) };
        let half = t / ((t * t + 1.0).sqrt() + 1.0);
        let w = 1.0 / (half * half + 1.0).sqrt();

        // the middle axis turns the other way
        let mut step = [w, 0.0, 0.0, 0.0];
        step[rotk + 1] = if rotk == 1 { half * w } else { -half * w };
        quat = mul_quat(&quat, &step);
        normalize4(&mut quat);
    }

    // decreasing order by quarter turns (pairs 0-1, 1-2, 0-1), only for distinct values
    let sort_eps = scale * 1e-12;
    for j in 0..3 {
        let j1 = j % 2;
        if val[j1 + 1] > val[j1] + sort_eps {
            val.swap(j1, j1 + 1);
            // MuJoCo's rounded literal, not FRAC_1_SQRT_2 (they differ in the last bits)
            #[allow(clippy::approx_constant)]
            let mut turn = [0.707106781186548, 0.0, 0.0, 0.0];
            turn[(j1 + 2) % 3 + 1] = turn[0];
            quat = mul_quat(&quat, &turn);
            normalize4(&mut quat);
        }
    }
    (val, quat2mat(&quat))
}

/// `mju_min`: `a` unless `b` is strictly smaller.
#[inline]
fn mj_min(a: f64, b: f64) -> f64 {
    if a <= b {
        a
    } else {
        b
    }
}

/// `mju_max`: `a` unless `b` is strictly larger.
#[inline]
fn mj_max(a: f64, b: f64) -> f64 {
    if a >= b {
        a
    } else {
        b
    }
}

/// Whether a body has a geom that can collide (`canCollide`, from the body aggregates).
#[inline]
pub fn body_can_collide(m: &CollisionModel, b: usize) -> bool {
    m.body_contype[b] != 0 || m.body_conaffinity[b] != 0
}

/// Whether a body has a plane geom (`hasPlane`).
fn has_plane(m: &CollisionModel, b: usize) -> bool {
    body_geoms(m, b).any(|g| m.geom_type[g] == GeomType::Plane)
}

/// The geom ids of body `b`.
#[inline]
pub fn body_geoms(m: &CollisionModel, b: usize) -> std::ops::Range<usize> {
    let adr = m.body_geomadr[b].max(0) as usize;
    adr..adr + m.body_geomnum[b]
}

/// Box of body `b` in the sweep frame, as (min x, y, z, max x, y, z) (`makeAAMM`).
#[inline(always)]
fn make_aamm(m: &CollisionModel, s: &State, spec: Option<&Motions>, b: usize, frame: &[f64; 9]) -> [f64; 6] {
    let override_margin = if m.opt.enabled(ENBL_OVERRIDE) { 0.5 * m.opt.o_margin } else { 0.0 };
    let mut aamm = [0.0; 6];
    for (i, g) in body_geoms(m, b).enumerate() {
        // a zero override margin falls back to the geom's own, as in MuJoCo
        let margin = if override_margin != 0.0 { override_margin } else { m.geom_margin[g] + m.geom_gap[g] };
        let aabb = &m.geom_aabb[g];
        let xpos = &s.geom_xpos[g];
        let xmat = &s.geom_xmat[g];
        let c = mul_mat_vec3(xmat, &[aabb[0], aabb[1], aabb[2]]);
        let pos = [c[0] + xpos[0], c[1] + xpos[1], c[2] + xpos[2]];
        let axis = transpose3(xmat);
        let r_half = m.geom_rbound[g];
        let mut one = [0.0; 6];
        for j in 0..3 {
            // sweep axis j: eigenvector j, column j of the frame (measured, see module doc)
            let fj = [frame[j], frame[3 + j], frame[6 + j]];
            let aabb_cen = dot3(&pos, &fj);
            let aabb_half = (aabb[3] * dot3(&[axis[0], axis[1], axis[2]], &fj)).abs()
                + (aabb[4] * dot3(&[axis[3], axis[4], axis[5]], &fj)).abs()
                + (aabb[5] * dot3(&[axis[6], axis[7], axis[8]], &fj)).abs();
            let r_cen = dot3(xpos, &fj);
            match spec {
                // a moving geom covers its whole sweep over the step (speculative contacts)
                Some(mo) if mo.moving(g) => {
                    let r_rot = rotation_radius(m.geom_type[g], r_half);
                    (one[j], one[j + 3]) =
                        swept_interval(r_cen, r_half, aabb_cen, aabb_half, &mo.motion[g], r_rot, &fj, margin);
                }
                _ => {
                    one[j] = mj_max(r_cen - r_half, aabb_cen - aabb_half) - margin;
                    one[j + 3] = mj_min(r_cen + r_half, aabb_cen + aabb_half) + margin;
                }
            }
        }
        if i == 0 {
            aamm = one;
        } else {
            for j in 0..3 {
                aamm[j] = mj_min(aamm[j], one[j]);
                aamm[j + 3] = mj_max(aamm[j + 3], one[j + 3]);
            }
        }
    }
    aamm
}

/// Whether body `b` is asleep for the purpose of filtering.
#[inline]
fn asleep(s: &State, sleep_filter: bool, b: usize) -> bool {
    sleep_filter && s.sleep.is_some_and(|sl| sl.body_awake[b] == SLEEP_ASLEEP)
}

/// Append the signature of `b1`, `b2` unless the OR of their geoms' bitmasks cannot meet
/// (`add_pair`).
///
/// MuJoCo's buffer holds `nbody (nbody - 1) / 2` pairs, duplicates included, and a call that
/// finds it full is an error (`mju_error`, "broadphase buffer full"; read from the released
/// library: the test comes before any filter). Static plane bodies pair with every body and the
/// sweep finds many of those pairs again, so a scene with several plane fixtures can fill it
/// (fuzz seed 2156); specula reports the same condition instead of growing the list.
fn add_pair(m: &CollisionModel, masks: &[(i32, i32)], b1: usize, b2: usize, out: &mut Vec<u32>, overflow: &mut bool) {
    let n = m.nbody() as u64;
    if out.len() as u64 >= n * n.saturating_sub(1) / 2 {
        *overflow = true;
        return;
    }
    let (t1, a1) = masks[b1];
    let (t2, a2) = masks[b2];
    if filter_bitmask(t1, a1, t2, a2) {
        return;
    }
    let (lo, hi) = if b1 < b2 { (b1, b2) } else { (b2, b1) };
    out.push(((lo as u32) << 16) + hi as u32);
}

/// The weld-filter inputs of body `b`: weld body, weld body of its parent, dofs of the weld.
#[inline]
fn weld_info(m: &CollisionModel, b: usize) -> (usize, usize, usize) {
    let weld = m.body_weldid[b];
    (weld, m.body_weldid[m.body_parentid[weld]], m.body_dofnum[weld])
}

/// The sweep end point `id_ismax` of the boxes `aamm`: a box's minimum or maximum along axis 0,
/// in single precision as MuJoCo stores it.
#[inline]
fn sap_point(aamm: &[[f64; 6]], id_ismax: u32) -> SapPoint {
    let b = &aamm[(id_ismax & 0xFFFF) as usize];
    let value = if id_ismax & ISMAX == 0 { b[0] } else { b[3] } as f32;
    SapPoint { value, id_ismax }
}

/// Sort the end points of `sc.aamm` into `sc.sweep` as MuJoCo's sweep does.
///
/// Equal end points put box minima before maxima, so boxes that touch are swept as
/// overlapping: the comparison MuJoCo 4.0.0's sweep uses on ties (read from the released
/// library's `mj_SAP`, which tests `id_ismax & 0x10000` when two values compare equal; the
/// corpus model test/xml/testdata/child.xml shows it: a sphere resting exactly on the edge of
/// two boxes gets both contacts). Its sort is stable and its input lists box 0's minimum and
/// maximum, then box 1's, ..., so points equal in value and kind keep box order: without NaN,
/// the result is the order of the keys (value, `id_ismax`), a total order that any sorting
/// method reproduces. Poses change little from one call to the next (consecutive steps, RK4's
/// stages), so the points are first put in the order the last call found and insertion-sorted
/// from there, which takes about one comparison per point instead of a full merge sort. A NaN
/// end point (no total order), a changed box count, or an order that has moved too far (more
/// shifts than four per point) goes to MuJoCo's own sort on the input order.
fn sort_sweep(sc: &mut BroadphaseScratch) {
    let n2 = 2 * sc.aamm.len();
    let finite_order = sc.aamm.iter().all(|b| !(b[0] as f32).is_nan() && !(b[3] as f32).is_nan());
    if finite_order && sc.order.len() == n2 {
        sc.sweep.clear();
        for &id in &sc.order {
            sc.sweep.push(sap_point(&sc.aamm, id));
        }
        let before = |a: &SapPoint, b: &SapPoint| a.value < b.value || (a.value == b.value && a.id_ismax < b.id_ismax);
        let mut budget = 4 * n2;
        let mut sorted = true;
        'sort: for j in 1..n2 {
            let tmp = sc.sweep[j];
            let mut k = j;
            while k > 0 && before(&tmp, &sc.sweep[k - 1]) {
                if budget == 0 {
                    sorted = false;
                    break 'sort;
                }
                budget -= 1;
                sc.sweep[k] = sc.sweep[k - 1];
                k -= 1;
            }
            sc.sweep[k] = tmp;
        }
        if sorted {
            for (o, p) in sc.order.iter_mut().zip(&sc.sweep) {
                *o = p.id_ismax;
            }
            return;
        }
    }
    sc.sweep.clear();
    for i in 0..sc.aamm.len() as u32 {
        sc.sweep.push(sap_point(&sc.aamm, i));
        sc.sweep.push(sap_point(&sc.aamm, i + ISMAX));
    }
    mj_sort(&mut sc.sweep, &mut sc.sweep_buf, |a, b| {
        if a.value < b.value {
            Ordering::Less
        } else if a.value == b.value {
            (a.id_ismax & ISMAX).cmp(&(b.id_ismax & ISMAX))
        } else {
            Ordering::Greater
        }
    });
    sc.order.clear();
    if finite_order {
        sc.order.extend(sc.sweep.iter().map(|p| p.id_ismax));
    }
}

/// Sweep and prune along axis 0 of `aamm` (`mj_SAP` with `axis_x = 0`): pairs of box indices
/// overlapping on all three axes, in sweep order.
fn sweep_and_prune(sc: &mut BroadphaseScratch) {
    let n = sc.aamm.len();
    sort_sweep(sc);

    sc.active.clear();
    sc.sap_pairs.clear();
    for k in 0..2 * n {
        let p = sc.sweep[k];
        if p.id_ismax & ISMAX == 0 {
            // a box opens: test it against every open box on the other two axes
            let id2 = p.id_ismax as usize;
            for a in &sc.active {
                let id1 = a.id_ismax as usize;
                let (b1, b2) = (&sc.aamm[id1], &sc.aamm[id2]);
                if b1[1] > b2[4] || b2[1] > b1[4] || b1[2] > b2[5] || b2[2] > b1[5] {
                    continue;
                }
                sc.sap_pairs.push((id1, id2));
            }
            sc.active.push(p);
        } else {
            // a box closes: drop it from the open list
            let id = p.id_ismax & 0xFFFF;
            if let Some(j) = sc.active.iter().position(|a| a.id_ismax == id) {
                sc.active.remove(j);
            }
        }
    }
}

avx_dispatch! {
    /// Fill `sc.pairs` with the candidate body pairs of MuJoCo's broadphase (see the module doc).
    /// Compiled for AVX when the CPU has it (its boxes are arithmetic; same source, same bits).
    pub fn broadphase(
        m: &CollisionModel,
        s: &State,
        sleep_filter: bool,
        spec: Option<&Motions>,
        sc: &mut BroadphaseScratch,
    ) => broadphase_any
}

/// [`broadphase`]'s body.
#[inline(always)]
fn broadphase_any(
    m: &CollisionModel,
    s: &State,
    sleep_filter: bool,
    spec: Option<&Motions>,
    sc: &mut BroadphaseScratch,
) {
    let nbody = m.nbody();
    let dsbl_filterparent = m.opt.disabled(DSBL_FILTERPARENT);
    sc.pairs.clear();
    sc.overflow = false;
    sc.masks.clear();
    sc.masks.extend(
        (0..nbody)
            .map(|b| body_geoms(m, b).fold((0, 0), |(t, a), g| (t | m.geom_contype[g], a | m.geom_conaffinity[g]))),
    );

    // 1. world and static plane bodies against everything
    for b1 in 0..nbody {
        if !body_can_collide(m, b1) {
            continue;
        }
        let (weld1, parent1, dofnum1) = weld_info(m, b1);
        if !((b1 == 0 && m.body_geomnum[b1] > 0) || (m.body_dofnum[weld1] == 0 && has_plane(m, b1))) {
            continue;
        }
        for b2 in 0..nbody {
            if !body_can_collide(m, b2) {
                continue;
            }
            let (weld2, parent2, dofnum2) = weld_info(m, b2);
            let asleep2 = asleep(s, sleep_filter, b2);
            if filter_body_pair(weld1, parent1, false, dofnum1, weld2, parent2, asleep2, dofnum2, dsbl_filterparent) {
                continue;
            }
            add_pair(m, &sc.masks, b1, b2, &mut sc.pairs, &mut sc.overflow);
        }
    }

    // 2. centre and covariance of the non-world geoms
    let mut cen = [0.0; 3];
    let mut cnt = 0usize;
    for g in 0..m.ngeom() {
        if m.geom_bodyid[g] != 0 {
            let p = &s.geom_xpos[g];
            cen = [cen[0] + p[0], cen[1] + p[1], cen[2] + p[2]];
            cnt += 1;
        }
    }
    if cnt == 0 {
        // MuJoCo returns here without sorting
        return;
    }
    let inv = 1.0 / cnt as f64;
    cen = [cen[0] * inv, cen[1] * inv, cen[2] * inv];
    let mut cov = [0.0; 9];
    for g in 0..m.ngeom() {
        if m.geom_bodyid[g] != 0 {
            let p = &s.geom_xpos[g];
            let d = [p[0] - cen[0], p[1] - cen[1], p[2] - cen[2]];
            let (d00, d01, d02) = (d[0] * d[0], d[0] * d[1], d[0] * d[2]);
            let (d11, d12, d22) = (d[1] * d[1], d[1] * d[2], d[2] * d[2]);
            let add = [d00, d01, d02, d01, d11, d12, d02, d12, d22];
            for (c, a) in cov.iter_mut().zip(add) {
                *c += a;
            }
        }
    }
    for c in cov.iter_mut() {
        *c *= inv;
    }
    let (_, frame) = eig3_tol(&cov, BROADPHASE_EIG_TOL);

    // 3. boxes of the collidable non-world bodies
    sc.ids.clear();
    sc.ids.extend((1..nbody).filter(|&b| body_can_collide(m, b)));
    if sc.ids.len() > 1 {
        sc.aamm.clear();
        // MuJoCo sweeps the boxes only with its own GJK/EPA on (S13): without it a moving
        // geom's box stays where the geom is (robust mode, specula's own, always sweeps)
        let sweep = spec.filter(|_| m.opt.robust || !m.opt.disabled(DSBL_NATIVECCD));
        for k in 0..sc.ids.len() {
            let b = sc.ids[k];
            let aamm = make_aamm(m, s, sweep, b, &frame);
            sc.aamm.push(aamm);
        }

        // 4. sweep and prune
        sweep_and_prune(sc);

        // 5. body rules, then the bitmask check inside add_pair
        for k in 0..sc.sap_pairs.len() {
            let (i1, i2) = sc.sap_pairs[k];
            let (b1, b2) = (sc.ids[i1], sc.ids[i2]);
            let (weld1, parent1, dofnum1) = weld_info(m, b1);
            let (weld2, parent2, dofnum2) = weld_info(m, b2);
            let (asleep1, asleep2) = (asleep(s, sleep_filter, b1), asleep(s, sleep_filter, b2));
            if filter_body_pair(weld1, parent1, asleep1, dofnum1, weld2, parent2, asleep2, dofnum2, dsbl_filterparent) {
                continue;
            }
            add_pair(m, &sc.masks, b1, b2, &mut sc.pairs, &mut sc.overflow);
        }
    }

    // 6. ascending signatures (plain integers: any sort gives MuJoCo's order)
    sort_signatures(sc, nbody);
}

/// Sort `sc.pairs` ascending: bucketed by the first body (the high half, below `nbody`), then
/// each bucket insertion-sorted. Signatures are plain integers, so any correct sort gives the
/// same list; this one avoids a general sort's cost on the few hundred pairs of a call, most
/// of whose buckets hold a handful of pairs (the world body's are already ascending).
fn sort_signatures(sc: &mut BroadphaseScratch, nbody: usize) {
    let n = sc.pairs.len();
    if n < 32 || sc.pairs.iter().any(|&p| (p >> 16) as usize >= nbody) {
        sc.pairs.sort_unstable();
        return;
    }
    // a scene whose only candidates are the world's pairs has them in order already
    if sc.pairs.is_sorted() {
        return;
    }
    // bucket[b + 1] counts bucket b; the prefix sums make bucket[b] its start
    sc.bucket.clear();
    sc.bucket.resize(nbody + 1, 0);
    for &p in &sc.pairs {
        sc.bucket[(p >> 16) as usize + 1] += 1;
    }
    for b in 1..=nbody {
        sc.bucket[b] += sc.bucket[b - 1];
    }
    sc.pairs_buf.clear();
    sc.pairs_buf.resize(n, 0);
    for &p in &sc.pairs {
        let slot = &mut sc.bucket[(p >> 16) as usize];
        sc.pairs_buf[*slot] = p;
        *slot += 1;
    }
    // bucket[b] is now the end of bucket b, the start of bucket b + 1
    let mut start = 0;
    for b in 0..nbody {
        let end = sc.bucket[b];
        let run = &mut sc.pairs_buf[start..end];
        if run.len() > 16 {
            run.sort_unstable();
        } else {
            for j in 1..run.len() {
                let x = run[j];
                let mut k = j;
                while k > 0 && run[k - 1] > x {
                    run[k] = run[k - 1];
                    k -= 1;
                }
                run[k] = x;
            }
        }
        start = end;
    }
    std::mem::swap(&mut sc.pairs, &mut sc.pairs_buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eig3_of_diagonal_sorts_decreasing() {
        let (val, vec) = eig3_tol(&[1.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 2.0], BROADPHASE_EIG_TOL);
        assert_eq!(val, [3.0, 2.0, 1.0]);
        // rows are unit vectors along the matching axes (up to sign)
        let row = |i: usize| [vec[3 * i], vec[3 * i + 1], vec[3 * i + 2]];
        let m = [1.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 2.0];
        for i in 0..3 {
            let r = row(i);
            assert!((dot3(&r, &r) - 1.0).abs() < 1e-15);
        }
        // columns are the eigenvectors: M v = lambda v
        for (i, lambda) in val.iter().enumerate() {
            let v = [vec[i], vec[3 + i], vec[6 + i]];
            let mv = mul_mat_vec3(&m, &v);
            for k in 0..3 {
                assert!((mv[k] - lambda * v[k]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn eig3_tol_sorts_with_a_relative_tolerance() {
        // two variances 4e-13 apart at 6.7e-3 (stacked_boxes.xml after one step): more than
        // 1e-12 of the largest entry, so they are swapped and y becomes the sweep axis
        let (a, b) = (6.666666666900e-3, 6.666666667300e-3);
        let (val, vec) = eig3_tol(&[a, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, 2.5e-3], BROADPHASE_EIG_TOL);
        assert_eq!(val, [b, a, 2.5e-3]);
        let col0 = [vec[0], vec[3], vec[6]];
        // (the quarter turn uses a rounded cos(pi/4), so the entries are off by a few ulps)
        assert!(col0[0].abs() < 1e-14 && (col0[1].abs() - 1.0).abs() < 1e-14 && col0[2].abs() < 1e-14);
        // 1e-15 apart is within the tolerance (6.7e-15): no swap, x stays first
        let b = a + 1e-15;
        let (val, vec) = eig3_tol(&[a, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, 2.5e-3], BROADPHASE_EIG_TOL);
        assert_eq!((val, vec[0]), ([a, b, 2.5e-3], 1.0));
    }

    #[test]
    fn eig3_tol_rotates_only_above_the_tolerance() {
        // an off-diagonal entry at most 1e-3 of the largest entry leaves the frame alone
        let m = [2.0, 2e-3, 0.0, 2e-3, 1.0, 0.0, 0.0, 0.0, 0.5];
        let (val, vec) = eig3_tol(&m, BROADPHASE_EIG_TOL);
        assert_eq!((val, vec), ([2.0, 1.0, 0.5], [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]));
        // a larger one is rotated away: [[2, 1], [1, 2]] has eigenvalues 3, 1 along (1, +-1)
        let m = [2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.5];
        let (val, vec) = eig3_tol(&m, BROADPHASE_EIG_TOL);
        for (v, want) in val.iter().zip([3.0, 1.0, 0.5]) {
            assert!((v - want).abs() < 1e-12, "{val:?}");
        }
        let half = std::f64::consts::FRAC_1_SQRT_2;
        assert!((vec[0].abs() - half).abs() < 1e-12 && (vec[3].abs() - half).abs() < 1e-12);
        assert!(vec[0] * vec[3] > 0.0);
    }

    /// The end points as MuJoCo's sort orders them: input order, then `mj_sort`.
    fn reference_order(aamm: &[[f64; 6]]) -> Vec<u32> {
        let mut sc = BroadphaseScratch { aamm: aamm.to_vec(), ..Default::default() };
        sort_sweep(&mut sc);
        sc.sweep.iter().map(|p| p.id_ismax).collect()
    }

    #[test]
    fn warm_started_sweep_sort_gives_mujocos_order() {
        // boxes on a coarse grid of end points (many exact ties, minima against maxima and
        // minima against minima), moved a little or a lot from call to call; every call must
        // give the order of a fresh sort of the input order
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        let mut sc = BroadphaseScratch::default();
        let mut aamm: Vec<[f64; 6]> = (0..60)
            .map(|_| {
                let lo = (rnd() * 20.0).floor() * 0.25;
                [lo, 0.0, 0.0, lo + (rnd() * 4.0).floor() * 0.25, 1.0, 1.0]
            })
            .collect();
        let (mut warm, mut calls) = (0, 0);
        for step in 0..400 {
            let big = step % 50 == 49;
            for b in aamm.iter_mut() {
                if big || rnd() < 0.1 {
                    let shift = ((rnd() * 3.0).floor() - 1.0) * 0.25 * if big { 8.0 } else { 1.0 };
                    b[0] += shift;
                    b[3] += shift;
                }
            }
            if step == 200 {
                aamm[7][0] = f64::NAN;
            }
            if step == 201 {
                aamm[7][0] = aamm[7][3] - 0.5;
            }
            let had_order = sc.order.len() == 2 * aamm.len();
            sc.aamm.clone_from(&aamm);
            sort_sweep(&mut sc);
            let got: Vec<u32> = sc.sweep.iter().map(|p| p.id_ismax).collect();
            if step != 200 {
                assert_eq!(got, reference_order(&aamm), "step {step}");
            }
            calls += 1;
            warm += had_order as usize;
        }
        // the warm path ran (the order is kept except after the NaN call)
        assert!(warm >= calls - 2, "{warm} of {calls}");
    }

    #[test]
    fn bucketed_signature_sort_matches_a_plain_sort() {
        // runs of every length around the insertion/general threshold, repeats, the world
        // bucket already ascending, and a list too short to bucket
        let mut seed = 99u64;
        let mut rnd = move |k: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % k
        };
        let mut sc = BroadphaseScratch::default();
        for len in [0usize, 5, 31, 32, 100, 700] {
            let nbody = 60;
            let mut pairs: Vec<u32> = (1..nbody as u32).take(len / 4).collect();
            while pairs.len() < len {
                let lo = if rnd(4) == 0 { rnd(3) } else { rnd(nbody as u64 - 1) } as u32;
                let hi = lo + 1 + rnd(nbody as u64 - 1 - lo as u64) as u32;
                pairs.push((lo << 16) + hi);
            }
            let mut want = pairs.clone();
            want.sort();
            sc.pairs = pairs;
            sort_signatures(&mut sc, nbody);
            assert_eq!(sc.pairs, want, "len {len}");
        }
    }

    #[test]
    fn touching_boxes_are_swept_as_overlapping() {
        // box 0 ends exactly where box 1 begins on the sweep axis; box 2 lies beyond a gap
        let mut sc = BroadphaseScratch {
            aamm: vec![
                [-3.0, -1.0, -1.0, -1.0, 1.0, 1.0],
                [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0],
                [1.5, -1.0, -1.0, 2.5, 1.0, 1.0],
            ],
            ..Default::default()
        };
        sweep_and_prune(&mut sc);
        assert_eq!(sc.sap_pairs, vec![(0, 1)]);
    }
}
