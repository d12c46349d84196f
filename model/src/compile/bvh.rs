//! Per-body bounding volume hierarchies over colliding geoms (MuJoCo's midphase trees).
//!
//! Algorithm (as MuJoCo's compiler builds them):
//! 1. Leaves are the body's geoms with nonzero contype or conaffinity, in geom order; each is
//!    placed by its centre expressed in the body's inertial frame.
//! 2. A node's box is the axis-aligned box, in the inertial frame, of the 8 corners of every
//!    leaf's own box (rotated by the geom pose); boxes flat to 1e-14 are inflated by 1e-14.
//! 3. Split along the longest box edge (an edge must exceed the previous choice by 1e-14),
//!    putting the `n/2` leaves with the smallest centre coordinate on the left (ties within
//!    1e-14 broken by leaf order); recurse left then right, numbering nodes in pre-order.
//!
//! NaN positions (MuJoCo compiles them with a warning) show how 4.0.0 really computes this
//! (measured on 600 random bodies of 2 to 80 geoms with NaN coordinates, all reproduced):
//! - The split is `std::nth_element` with the comparison of step 3, which for a NaN coordinate
//!   falls through to the leaf order: no order at all, so the halves depend on the algorithm (a
//!   Rust sort panicked on it). [`nth_element`] selects as MuJoCo 4.0.0's libc++ does.
//! - The box that picks the split axis skips NaN coordinates (`v < lo ? v : lo`).
//! - The stored boxes are built bottom-up with MuJoCo's `mjMIN`/`mjMAX` ([`mj_min`](super::math::mj_min)): a leaf
//!   from its corners, an inner node from its children's (uninflated) boxes, left then right;
//!   under `lo < v ? lo : v` a NaN replaces the bound and the next number replaces the NaN. For
//!   finite positions both boxes are the one of step 2.

use super::math::{mj_max, mj_min, rot_vec_quat, EPS};
use crate::model::Model;

/// One collidable geom of a body: geom id, pose in the body frame, local box (centre, half).
#[derive(Clone, Copy, Debug)]
pub struct BvhLeaf {
    /// Geom id (stored at the leaf node).
    pub id: usize,
    /// `geom_pos`.
    pub pos: [f64; 3],
    /// `geom_quat`.
    pub quat: [f64; 4],
    /// `geom_aabb`.
    pub aabb: [f64; 6],
}

/// One body's tree in mjModel's layout: per node depth, children (local indices, -1 none), geom
/// id (-1 inner) and box (centre, half-size in the inertial frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyTree {
    /// `bvh_depth`.
    pub depth: Vec<i32>,
    /// `bvh_child`.
    pub child: Vec<[i32; 2]>,
    /// `bvh_nodeid`.
    pub nodeid: Vec<i32>,
    /// `bvh_aabb`.
    pub aabb: Vec<[f64; 6]>,
}

/// A leaf while building: its index in the input (the tie order), its split key (centre in the
/// inertial frame) and its 8 corners in the inertial frame.
struct Item {
    index: usize,
    lpos: [f64; 3],
    corners: [[f64; 3]; 8],
}

/// Min/max bounds (`AAMM`: 3 lower, 3 upper) before any point.
const EMPTY: [f64; 6] = [f64::MAX, f64::MAX, f64::MAX, -f64::MAX, -f64::MAX, -f64::MAX];

/// The stored boxes start from +-mjMAXVAL (1e10), not from the extremes, so a box beyond 1e10
/// keeps 1e10 as its near bound (measured with 4.0.0: a sphere of radius 1 at y = 1e15 stores
/// centre 5.00005e14, half 4.99995e14; at 1e308, 5e307 and 5e307). The split box does not.
const STORED_EMPTY: [f64; 6] = [1e10, 1e10, 1e10, -1e10, -1e10, -1e10];

/// Builds the tree of a body from its collidable geoms (in geom order) and its inertial frame
/// (`body_ipos`, `body_iquat`); empty when there are none.
pub fn build_tree(leaves: &[BvhLeaf], ipos: &[f64; 3], iquat: &[f64; 4]) -> BodyTree {
    let qinv = [iquat[0], -iquat[1], -iquat[2], -iquat[3]];
    let items: Vec<Item> = leaves
        .iter()
        .enumerate()
        .map(|(index, l)| {
            let lpos = rot_vec_quat(&[l.pos[0] - ipos[0], l.pos[1] - ipos[1], l.pos[2] - ipos[2]], &qinv);
            let a = &l.aabb;
            let (lo, hi) = ([a[0] - a[3], a[1] - a[4], a[2] - a[5]], [a[0] + a[3], a[1] + a[4], a[2] + a[5]]);
            let corners = std::array::from_fn(|v| {
                let vert = [
                    if v & 1 != 0 { hi[0] } else { lo[0] },
                    if v & 2 != 0 { hi[1] } else { lo[1] },
                    if v & 4 != 0 { hi[2] } else { lo[2] },
                ];
                // geom frame -> body frame -> inertial frame
                let mut b = rot_vec_quat(&vert, &l.quat);
                b[0] += l.pos[0] - ipos[0];
                b[1] += l.pos[1] - ipos[1];
                b[2] += l.pos[2] - ipos[2];
                rot_vec_quat(&b, &qinv)
            });
            Item { index, lpos, corners }
        })
        .collect();
    let mut refs: Vec<&Item> = items.iter().collect();
    let mut t = BodyTree::default();
    build(&mut refs, leaves, 0, &mut t);
    t
}

/// Adds the node over `items` and its subtree; returns its index (-1 when empty) and its
/// uninflated stored bounds.
fn build(items: &mut [&Item], leaves: &[BvhLeaf], lev: i32, t: &mut BodyTree) -> (i32, [f64; 6]) {
    let n = items.len();
    if n == 0 {
        return (-1, EMPTY);
    }
    // the split box: NaN coordinates skipped
    let mut split = EMPTY;
    for c in items.iter().flat_map(|it| it.corners.iter()) {
        for k in 0..3 {
            split[k] = if c[k] < split[k] { c[k] } else { split[k] };
            split[k + 3] = if split[k + 3] < c[k] { c[k] } else { split[k + 3] };
        }
    }
    inflate(&mut split);
    let index = t.depth.len();
    t.depth.push(lev);
    t.child.push([-1, -1]);
    t.nodeid.push(-1);
    t.aabb.push([0.0; 6]);
    let mut bounds = STORED_EMPTY;
    if n == 1 {
        t.nodeid[index] = leaves[items[0].index].id as i32;
        for c in &items[0].corners {
            for k in 0..3 {
                bounds[k] = mj_min(bounds[k], c[k]);
                bounds[k + 3] = mj_max(bounds[k + 3], c[k]);
            }
        }
    } else {
        let edges = [split[3] - split[0], split[4] - split[1], split[5] - split[2]];
        let mut axis = 0;
        if edges[1] >= edges[0] + EPS {
            axis = 1;
        }
        if edges[2] >= edges[axis] + EPS {
            axis = 2;
        }
        let m = n / 2;
        nth_element(items, m, |a, b| split_less(a.lpos[axis], a.index, b.lpos[axis], b.index));
        let (left, right) = items.split_at_mut(m);
        let (c0, b0) = build(left, leaves, lev + 1, t);
        let (c1, b1) = build(right, leaves, lev + 1, t);
        t.child[index] = [c0, c1];
        for (c, b) in [(c0, b0), (c1, b1)] {
            if c >= 0 {
                for k in 0..3 {
                    bounds[k] = mj_min(bounds[k], b[k]);
                    bounds[k + 3] = mj_max(bounds[k + 3], b[k + 3]);
                }
            }
        }
    }
    let mut am = bounds;
    inflate(&mut am);
    t.aabb[index] = [
        (am[3] + am[0]) / 2.0,
        (am[4] + am[1]) / 2.0,
        (am[5] + am[2]) / 2.0,
        (am[3] - am[0]) / 2.0,
        (am[4] - am[1]) / 2.0,
        (am[5] - am[2]) / 2.0,
    ];
    (index as i32, bounds)
}

/// Widens extents flatter than 1e-14 by 1e-14 each way.
fn inflate(am: &mut [f64; 6]) {
    for k in 0..3 {
        if (am[k] - am[k + 3]).abs() < EPS {
            am[k] -= EPS;
            am[k + 3] += EPS;
        }
    }
}

/// Fills `body_bvhadr`, `body_bvhnum` and the `bvh_*` arrays (body trees only).
pub fn fill_body_bvh(m: &mut Model) {
    for b in 0..m.nbody {
        let adr = m.body_geomadr[b];
        let leaves: Vec<BvhLeaf> = (0..m.body_geomnum[b])
            .map(|g| adr as usize + g)
            .filter(|&id| m.geom_contype[id] != 0 || m.geom_conaffinity[id] != 0)
            .map(|id| BvhLeaf { id, pos: m.geom_pos[id], quat: m.geom_quat[id], aabb: m.geom_aabb[id] })
            .collect();
        let t = build_tree(&leaves, &m.body_ipos[b], &m.body_iquat[b]);
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

/// The compiler's split order of two leaves at coordinates `pa`, `pb` with geom ids `ia`, `ib`:
/// by coordinate when they differ by more than 1e-14, else by geom id (so also when either is
/// NaN: this is not a total order then).
fn split_less(pa: f64, ia: usize, pb: f64, ib: usize) -> bool {
    if (pa - pb).abs() > EPS {
        pa < pb
    } else {
        ia < ib
    }
}

/// Moves the elements so that `v[nth]` is the one a sort by `less` would put there, with no
/// element after it less than any before it, exactly as `std::nth_element` of MuJoCo 4.0.0's
/// libc++ does (the arrangement matters when `less` is not a strict weak order, as with NaN
/// keys). `less` must be irreflexive; whatever else it does, this never panics or loops.
///
/// Algorithm (introselect):
/// 1. Ranges of 2 and 3 are sorted by one compare-swap or the 3-sort below; up to 7 by selection
///    sort (swap the first smallest to the front, repeatedly).
/// 2. Otherwise the pivot is the median of first, middle and last, placed by the 3-sort (which
///    counts its swaps). If the first element is not less than the pivot, the scan from the top
///    looks for an element less than the pivot to swap into first place; if there is none, the
///    range is split instead into elements equal to the first (not greater) and greater ones, and
///    selection continues in the greater part unless `nth` is in the equal part.
/// 3. Hoare partition around the pivot, moving the pivot's index along when it is swapped; then
///    the pivot is swapped to the split point if it is less than the element there.
/// 4. Done if `nth` is the split point, or if nothing was swapped and the side holding `nth` is
///    already sorted; otherwise continue in that side.
fn nth_element<T>(v: &mut [T], nth: usize, less: impl Fn(&T, &T) -> bool) {
    let (mut first, mut last) = (0, v.len());
    loop {
        if nth >= last {
            return;
        }
        let len = last - first;
        match len {
            0 | 1 => return,
            2 => {
                if less(&v[last - 1], &v[first]) {
                    v.swap(first, last - 1);
                }
                return;
            }
            3 => {
                sort3(v, [first, first + 1, last - 1], &less);
                return;
            }
            _ if len <= 7 => {
                selection_sort(&mut v[first..last], &less);
                return;
            }
            _ => {}
        }
        let mut m = first + len / 2;
        let mut swaps = sort3(v, [first, m, last - 1], &less);
        let (mut i, mut j) = (first, last - 1);
        if !less(&v[i], &v[m]) {
            // a guard for the downward scan: an element less than the pivot
            let guard = loop {
                j -= 1;
                if j == i {
                    break false;
                }
                if less(&v[j], &v[m]) {
                    break true;
                }
            };
            if guard {
                v.swap(i, j);
                swaps += 1;
            } else {
                // nothing is less than the pivot: split into [first, i) == v[first] < [i, last)
                i += 1;
                j = last - 1;
                if !less(&v[first], &v[j]) {
                    loop {
                        if i == j {
                            return;
                        }
                        if less(&v[first], &v[i]) {
                            v.swap(i, j);
                            swaps += 1;
                            i += 1;
                            break;
                        }
                        i += 1;
                    }
                }
                if i == j {
                    return;
                }
                loop {
                    while i < j && !less(&v[first], &v[i]) {
                        i += 1;
                    }
                    loop {
                        j -= 1;
                        if j == first || !less(&v[first], &v[j]) {
                            break;
                        }
                    }
                    if i >= j {
                        break;
                    }
                    v.swap(i, j);
                    swaps += 1;
                    i += 1;
                }
                if nth < i {
                    return;
                }
                first = i;
                continue;
            }
        }
        i += 1;
        if i < j {
            loop {
                while i + 1 < last && less(&v[i], &v[m]) {
                    i += 1;
                }
                loop {
                    j -= 1;
                    if j == first || less(&v[j], &v[m]) {
                        break;
                    }
                }
                if i >= j {
                    break;
                }
                v.swap(i, j);
                swaps += 1;
                if m == i {
                    m = j;
                }
                i += 1;
            }
        }
        if i != m && less(&v[m], &v[i]) {
            v.swap(i, m);
            swaps += 1;
        }
        if nth == i {
            return;
        }
        if swaps == 0 {
            let (lo, hi) = if nth < i { (first, i) } else { (i, last) };
            if (lo + 1..hi).all(|k| !less(&v[k], &v[k - 1])) {
                return;
            }
        }
        if nth < i {
            last = i;
        } else {
            first = i + 1;
        }
    }
}

/// Sorts the three elements at `at` (libc++'s `__sort3`); returns the number of swaps.
fn sort3<T>(v: &mut [T], at: [usize; 3], less: &impl Fn(&T, &T) -> bool) -> u32 {
    let [x, y, z] = at;
    if !less(&v[y], &v[x]) {
        if !less(&v[z], &v[y]) {
            return 0;
        }
        v.swap(y, z);
        if less(&v[y], &v[x]) {
            v.swap(x, y);
            return 2;
        }
        return 1;
    }
    if less(&v[z], &v[y]) {
        v.swap(x, z);
        return 1;
    }
    v.swap(x, y);
    if less(&v[z], &v[y]) {
        v.swap(y, z);
        return 2;
    }
    1
}

/// Selection sort: the first smallest of the rest is swapped to each place in turn.
fn selection_sort<T>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    for f in 0..v.len().saturating_sub(1) {
        let mut min = f;
        for k in f + 1..v.len() {
            if less(&v[k], &v[min]) {
                min = k;
            }
        }
        if min != f {
            v.swap(f, min);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift) for the property tests.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn nth_element_selects_like_a_sort_for_a_total_order() {
        let mut seed = 0x9e3779b97f4a7c15;
        for _ in 0..2000 {
            let n = 1 + (rng(&mut seed) % 70) as usize;
            let v: Vec<u64> = (0..n).map(|_| rng(&mut seed) % 20).collect();
            let nth = (rng(&mut seed) % n as u64) as usize;
            let mut got = v.clone();
            nth_element(&mut got, nth, |a, b| a < b);
            let mut sorted = v.clone();
            sorted.sort();
            assert_eq!(got[nth], sorted[nth], "{v:?} nth {nth}");
            assert!(got[..nth].iter().all(|x| *x <= got[nth]) && got[nth + 1..].iter().all(|x| *x >= got[nth]));
            let mut same = got.clone();
            same.sort();
            assert_eq!(same, sorted, "a permutation");
        }
    }

    #[test]
    fn nan_keys_neither_panic_nor_lose_elements() {
        let mut seed = 12345;
        for _ in 0..2000 {
            let n = 1 + (rng(&mut seed) % 70) as usize;
            let keys: Vec<f64> =
                (0..n).map(|_| if rng(&mut seed) % 3 == 0 { f64::NAN } else { (rng(&mut seed) % 10) as f64 }).collect();
            let mut idx: Vec<usize> = (0..n).collect();
            nth_element(&mut idx, n / 2, |&a, &b| split_less(keys[a], a, keys[b], b));
            idx.sort();
            assert_eq!(idx, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_nan_leaf_is_nan_and_its_sibling_wins_as_in_mujoco() {
        // MuJoCo 4.0.0: geoms at x = 1 and x = NaN give a NaN root; NaN then 1 give the box of
        // the finite one; 1, NaN, 2 give [0.98, 2.02] (the split box skips the NaN).
        let id = [1.0, 0.0, 0.0, 0.0];
        let leaf = |id_: usize, x: f64| BvhLeaf {
            id: id_,
            pos: [x, 0.0, 0.0],
            quat: id,
            aabb: [0.0, 0.0, 0.0, 0.02, 0.02, 0.02],
        };
        let t = build_tree(&[leaf(0, 1.0), leaf(1, f64::NAN)], &[0.0; 3], &id);
        assert!(t.aabb[0][0].is_nan() && t.aabb[2][0].is_nan() && t.aabb[2][3].is_nan());
        let t = build_tree(&[leaf(0, f64::NAN), leaf(1, 1.0)], &[0.0; 3], &id);
        assert_eq!(t.aabb[0][0], 1.0);
        let t = build_tree(&[leaf(0, 1.0), leaf(1, f64::NAN), leaf(2, 2.0)], &[0.0; 3], &id);
        assert!((t.aabb[0][0] - 1.5).abs() < 1e-15 && (t.aabb[0][3] - 0.52).abs() < 1e-15);
        assert_eq!(t.nodeid, vec![-1, 0, -1, 1, 2]);
    }
}
