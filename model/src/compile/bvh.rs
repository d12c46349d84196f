//! Per-body bounding volume hierarchies over colliding geoms (MuJoCo's midphase trees).
//!
//! Algorithm (as MuJoCo's compiler builds them):
//! 1. Leaves are the body's geoms with nonzero contype or conaffinity, in geom order; each is
//!    placed by its centre expressed in the body's inertial frame.
//! 2. A node's box is the axis-aligned box, in the inertial frame, of the 8 corners of every
//!    leaf's own box (rotated by the geom pose); boxes flat to 1e-14 are inflated by 1e-14.
//! 3. Split along the longest box edge (an edge must exceed the previous choice by 1e-14),
//!    putting the `n/2` leaves with the smallest centre coordinate on the left (ties within
//!    1e-14 broken by geom order); recurse left then right, numbering nodes in pre-order.

use super::math::{rot_vec_quat, EPS};
use crate::model::Model;

struct Leaf {
    id: usize,
    lpos: [f64; 3],
    pos: [f64; 3],
    quat: [f64; 4],
    aabb: [f64; 6],
}

/// One body's tree: per node depth, children (local indices, -1 none), geom id (-1 inner) and
/// box (centre, half-size in the inertial frame).
#[derive(Default)]
struct Tree {
    depth: Vec<i32>,
    child: Vec<[i32; 2]>,
    nodeid: Vec<i32>,
    aabb: Vec<[f64; 6]>,
}

fn build(leaves: &mut [&Leaf], lev: i32, ipos: &[f64; 3], qinv: &[f64; 4], t: &mut Tree) -> i32 {
    let n = leaves.len();
    if n == 0 {
        return -1;
    }
    let mut am = [f64::MAX, f64::MAX, f64::MAX, -f64::MAX, -f64::MAX, -f64::MAX];
    for l in leaves.iter() {
        let a = &l.aabb;
        let lo = [a[0] - a[3], a[1] - a[4], a[2] - a[5]];
        let hi = [a[0] + a[3], a[1] + a[4], a[2] + a[5]];
        for v in 0..8 {
            let vert = [
                if v & 1 != 0 { hi[0] } else { lo[0] },
                if v & 2 != 0 { hi[1] } else { lo[1] },
                if v & 4 != 0 { hi[2] } else { lo[2] },
            ];
            let mut b = rot_vec_quat(&vert, &l.quat);
            b[0] += l.pos[0] - ipos[0];
            b[1] += l.pos[1] - ipos[1];
            b[2] += l.pos[2] - ipos[2];
            let w = rot_vec_quat(&b, qinv);
            for k in 0..3 {
                am[k] = am[k].min(w[k]);
                am[k + 3] = am[k + 3].max(w[k]);
            }
        }
    }
    for k in 0..3 {
        if (am[k] - am[k + 3]).abs() < EPS {
            am[k] -= EPS;
            am[k + 3] += EPS;
        }
    }
    let index = t.depth.len();
    t.depth.push(lev);
    t.child.push([-1, -1]);
    t.nodeid.push(-1);
    t.aabb.push([
        (am[3] + am[0]) / 2.0,
        (am[4] + am[1]) / 2.0,
        (am[5] + am[2]) / 2.0,
        (am[3] - am[0]) / 2.0,
        (am[4] - am[1]) / 2.0,
        (am[5] - am[2]) / 2.0,
    ]);
    if n == 1 {
        t.nodeid[index] = leaves[0].id as i32;
        return index as i32;
    }
    let edges = [am[3] - am[0], am[4] - am[1], am[5] - am[2]];
    let mut axis = 0;
    if edges[1] >= edges[0] + EPS {
        axis = 1;
    }
    if edges[2] >= edges[axis] + EPS {
        axis = 2;
    }
    // the left half is the set of the n/2 smallest leaves; a full sort gives the same sets
    leaves.sort_by(|a, b| {
        if (a.lpos[axis] - b.lpos[axis]).abs() > EPS {
            a.lpos[axis].partial_cmp(&b.lpos[axis]).unwrap_or(std::cmp::Ordering::Equal)
        } else {
            a.id.cmp(&b.id)
        }
    });
    let m = n / 2;
    let (left, right) = leaves.split_at_mut(m);
    if m > 0 {
        t.child[index][0] = build(left, lev + 1, ipos, qinv, t);
    }
    if m != n {
        t.child[index][1] = build(right, lev + 1, ipos, qinv, t);
    }
    index as i32
}

/// Fills `body_bvhadr`, `body_bvhnum` and the `bvh_*` arrays (body trees only).
pub fn fill_body_bvh(m: &mut Model) {
    for b in 0..m.nbody {
        let (ipos, iquat) = (m.body_ipos[b], m.body_iquat[b]);
        let qinv = [iquat[0], -iquat[1], -iquat[2], -iquat[3]];
        let mut leaves = Vec::new();
        let adr = m.body_geomadr[b];
        for g in 0..m.body_geomnum[b] {
            let id = adr as usize + g;
            if m.geom_contype[id] != 0 || m.geom_conaffinity[id] != 0 {
                let p = m.geom_pos[id];
                let lpos = rot_vec_quat(&[p[0] - ipos[0], p[1] - ipos[1], p[2] - ipos[2]], &qinv);
                leaves.push(Leaf { id, lpos, pos: p, quat: m.geom_quat[id], aabb: m.geom_aabb[id] });
            }
        }
        let mut refs: Vec<&Leaf> = leaves.iter().collect();
        let mut t = Tree::default();
        build(&mut refs, 0, &ipos, &qinv, &mut t);
        let n = t.depth.len();
        m.body_bvhadr.push(if n > 0 { m.bvh_depth.len() as i32 } else { -1 });
        m.body_bvhnum.push(n);
        m.bvh_depth.extend(t.depth);
        m.bvh_child.extend(t.child);
        m.bvh_nodeid.extend(t.nodeid);
        m.bvh_aabb.extend(t.aabb);
    }
    m.nbvh = m.bvh_depth.len();
}
