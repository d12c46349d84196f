//! Per-body geom trees (MuJoCo's body BVH) and the mid-phase traversal of two of them.
//!
//! Building (what MuJoCo's compiler does in `mjCBoundingVolumeHierarchy::MakeBVH`, needed only
//! when the model comes from specula's own compiler; a C `mjModel` already has the arrays) is
//! the compiler's (`specula_model::compile::bvh`, whose documentation has the algorithm, NaN
//! positions included), so the collision stage and `specula check` see one tree.
//!
//! Traversal (`mj_collideTree` for two bodies): a stack of node pairs starting at the roots.
//! Two leaves are tested with bounding spheres and oriented boxes, then `filterCollisionPair`.
//! Otherwise the two node boxes, placed with the bodies' inertial frames, must overlap within
//! the bodies' combined margin (`body_margin`, or the override margin) or the pair is pruned;
//! then the side that is not a leaf is split, and when both can be, the one whose box has the
//! larger `x*y + y*z + z*x` over its half sizes x, y, z (ties: the second tree).
//!
//! Measured: the Aug-2026 source compares `(half size - centre)` products instead. On a random
//! scene (two 3-geom bodies, override on, large geom gaps) MuJoCo 4.0.0 starts producing one
//! sphere-sphere contact at o_margin 0.04765412655615364 (bisection on `mj_collision`); a
//! replica of this traversal with half sizes gives the same threshold to all digits, while the
//! snapshot's rule reaches that leaf at every margin.

use super::filter::{assign_margin, MAXVAL};
use super::model::CollisionModel;
use crate::math::dot3;
use specula_model::compile::bvh::{build_tree, BvhLeaf};

/// The tree of one body in mjModel's layout (relative child indices, geom ids at leaves).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyTree {
    /// Node boxes in the body's inertial frame: centre (3), half sizes (3).
    pub aabb: Vec<[f64; 6]>,
    /// Children of each node (relative to the body's first node), -1 when absent.
    pub child: Vec<[i32; 2]>,
    /// Geom id of each leaf, -1 for inner nodes.
    pub nodeid: Vec<i32>,
}

/// One collidable geom of a body for [`build_body_tree`]: geom id, position and orientation in
/// the body frame (`geom_pos`, `geom_quat`), local box (`geom_aabb`).
pub type TreeLeaf = (usize, [f64; 3], [f64; 4], [f64; 6]);

/// Build the tree of a body from its geoms' poses in the body frame and local boxes, and the
/// body's inertial frame (`body_ipos`, `body_iquat`). `geoms` lists (geom id, pos, quat, aabb)
/// of the collidable geoms in geom order. Empty when there are none. The compiler's own builder
/// does the work, so both routes hold the same tree.
pub fn build_body_tree(geoms: &[TreeLeaf], ipos: &[f64; 3], iquat: &[f64; 4]) -> BodyTree {
    let leaves: Vec<BvhLeaf> = geoms.iter().map(|&(id, pos, quat, aabb)| BvhLeaf { id, pos, quat, aabb }).collect();
    let t = build_tree(&leaves, ipos, iquat);
    BodyTree { aabb: t.aabb, child: t.child, nodeid: t.nodeid }
}

/// Cached products of `mj_collideOBB` for one body pair: the dot products of the two frames'
/// axes and of the positions with them, computed at the first inner-node test.
pub(crate) struct ObbCache {
    product: [f64; 36],
    offset: [f64; 12],
    ready: bool,
}

impl ObbCache {
    /// Empty cache (filled by the first test).
    pub(crate) fn new() -> Self {
        ObbCache { product: [0.0; 36], offset: [0.0; 12], ready: false }
    }
}

/// `mj_collideOBB` with cached products (inner nodes): boxes `aabb` (centre, half sizes) in
/// frames (`xpos`, `xmat`), overlapping within `margin` along the six face normals.
pub(crate) fn collide_obb_cached(
    aabb: [&[f64; 6]; 2],
    xpos: [&[f64; 3]; 2],
    xmat: [&[f64; 9]; 2],
    margin: f64,
    cache: &mut ObbCache,
) -> bool {
    let inf = |b: &[f64; 6]| [b[3] >= MAXVAL, b[4] >= MAXVAL, b[5] >= MAXVAL];
    let (inf1, inf2) = (inf(aabb[0]), inf(aabb[1]));
    if (inf1[0] && inf1[1] && inf1[2]) || (inf2[0] && inf2[1] && inf2[2]) {
        return true;
    }
    let infinite = [inf1[0] || inf1[1] || inf1[2], inf2[0] || inf2[1] || inf2[2]];
    if !cache.ready {
        let mut normal = [[[0.0; 3]; 3]; 2];
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..3 {
                    normal[i][j][k] = xmat[i][3 * k + j];
                }
            }
        }
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..3 {
                    for l in 0..3 {
                        cache.product[18 * i + 9 * j + 3 * k + l] = dot3(&normal[i][l], &normal[j][k]);
                    }
                    cache.offset[6 * i + 3 * j + k] = dot3(xpos[i], &normal[j][k]);
                }
            }
        }
        cache.ready = true;
    }
    let (p, o) = (&cache.product, &cache.offset);
    for j in 0..2 {
        if infinite[1 - j] {
            continue;
        }
        for k in 0..3 {
            let mut proj = [0.0; 2];
            let mut radius = [0.0; 2];
            for i in 0..2 {
                let adr = 18 * i + 9 * j + 3 * k;
                let b = aabb[i];
                proj[i] = b[0] * p[adr] + b[1] * p[adr + 1] + b[2] * p[adr + 2] + o[6 * i + 3 * j + k];
                radius[i] = (b[3] * p[adr]).abs() + (b[4] * p[adr + 1]).abs() + (b[5] * p[adr + 2]).abs();
            }
            if radius[0] + radius[1] + margin < (proj[1] - proj[0]).abs() {
                return false;
            }
        }
    }
    true
}

/// Leaf pairs (geom of body 1, geom of body 2) reached by traversing the trees of `b1` and `b2`
/// with inner-node pruning, in traversal order; `leaf` applies the leaf tests and records the
/// pair. `stack` is scratch.
pub(crate) fn traverse<F: FnMut(usize, usize)>(
    m: &CollisionModel,
    b1: usize,
    b2: usize,
    xipos: &[[f64; 3]],
    ximat: &[[f64; 9]],
    stack: &mut Vec<(usize, usize)>,
    mut leaf: F,
) {
    let (adr1, adr2) = (m.body_bvhadr[b1] as usize, m.body_bvhadr[b2] as usize);
    let node = |adr: usize, n: usize| (m.bvh_child[adr + n], &m.bvh_aabb[adr + n], m.bvh_nodeid[adr + n]);
    let margin = assign_margin(m, m.body_margin[b1] + m.body_margin[b2]);
    let mut cache = ObbCache::new();
    stack.clear();
    stack.push((0, 0));
    while let Some((n1, n2)) = stack.pop() {
        let (child1, box1, id1) = node(adr1, n1);
        let (child2, box2, id2) = node(adr2, n2);
        let leaf1 = child1[0] < 0 && child1[1] < 0;
        let leaf2 = child2[0] < 0 && child2[1] < 0;
        if leaf1 && leaf2 {
            if id1 >= 0 && id2 >= 0 {
                leaf(id1 as usize, id2 as usize);
            }
            continue;
        }
        if !collide_obb_cached([box1, box2], [&xipos[b1], &xipos[b2]], [&ximat[b1], &ximat[b2]], margin, &mut cache) {
            continue;
        }
        let split1 = if !leaf1 && leaf2 {
            true
        } else if leaf1 && !leaf2 {
            false
        } else {
            // surface measure from the half sizes (see the module doc for the measurement)
            let ext = |b: &[f64; 6]| [b[3], b[4], b[5]];
            let (e1, e2) = (ext(box1), ext(box2));
            let s1 = e1[0] * e1[1] + e1[1] * e1[2] + e1[2] * e1[0];
            let s2 = e2[0] * e2[1] + e2[1] * e2[2] + e2[2] * e2[0];
            s1 > s2
        };
        if split1 {
            for c in child1 {
                if c != -1 {
                    stack.push((c as usize, n2));
                }
            }
        } else {
            for c in child2 {
                if c != -1 {
                    stack.push((n1, c as usize));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_leaves_split_along_the_long_axis() {
        // unit boxes at x = 0 and x = 3: root spans x in [-1, 4], children in geom order
        let unit = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let id = [1.0, 0.0, 0.0, 0.0];
        let t = build_body_tree(&[(7, [3.0, 0.0, 0.0], id, unit), (5, [0.0; 3], id, unit)], &[0.0; 3], &id);
        assert_eq!(t.aabb[0], [1.5, 0.0, 0.0, 2.5, 1.0, 1.0]);
        assert_eq!(t.child, vec![[1, 2], [-1, -1], [-1, -1]]);
        // the lower half along x is geom 5 (at x = 0)
        assert_eq!(t.nodeid, vec![-1, 5, 7]);
    }
}
