//! The cheap tests that decide whether two bodies or two geoms are worth colliding: bitmasks,
//! the body-pair rules (welds, parents, sleep), bounding spheres and oriented boxes. Each one
//! names the MuJoCo routine of `engine_collision_driver.c` it reproduces; comparisons keep
//! MuJoCo's direction (`<` vs `<=`) because a pair exactly on the boundary must come out the
//! same.

use super::model::{CollisionModel, ENBL_OVERRIDE};
use crate::math::{dot3, mul_mat_vec3, sub3};
use crate::narrowphase::GeomType;

/// MuJoCo's `mjMAXVAL`: half sizes at or above it mark an infinite (plane) box.
pub const MAXVAL: f64 = 1e10;

/// True when the bitmasks forbid contact (`filterBitmask`): neither type meets the other's
/// affinity.
#[inline]
pub fn filter_bitmask(contype1: i32, conaffinity1: i32, contype2: i32, conaffinity2: i32) -> bool {
    (contype1 & conaffinity2) == 0 && (contype2 & conaffinity1) == 0
}

/// Margin of a geom pair: the override margin or the given one (`mj_assignMargin`).
#[inline]
pub fn assign_margin(m: &CollisionModel, source: f64) -> f64 {
    if m.opt.enabled(ENBL_OVERRIDE) {
        m.opt.o_margin
    } else {
        source
    }
}

/// Margin of geoms `g1`, `g2`, or of explicit pair `ipair` (`getMargin`).
#[inline]
pub fn pair_margin(m: &CollisionModel, g1: usize, g2: usize, ipair: Option<usize>) -> f64 {
    match ipair {
        Some(p) => assign_margin(m, m.pair_margin[p]),
        None => assign_margin(m, m.geom_margin[g1] + m.geom_margin[g2]),
    }
}

/// Gap of geoms `g1`, `g2`, or of explicit pair `ipair` (`getGap`; never overridden).
#[inline]
pub fn pair_gap(m: &CollisionModel, g1: usize, g2: usize, ipair: Option<usize>) -> f64 {
    match ipair {
        Some(p) => m.pair_gap[p],
        None => m.geom_gap[g1] + m.geom_gap[g2],
    }
}

/// Signed height of geom `g2`'s centre above plane geom `g1` (`planeGeomDist`).
#[inline]
fn plane_geom_dist(xpos: &[[f64; 3]], xmat: &[[f64; 9]], g1: usize, g2: usize) -> f64 {
    let mat = &xmat[g1];
    let normal = [mat[2], mat[5], mat[8]];
    dot3(&sub3(&xpos[g2], &xpos[g1]), &normal)
}

/// True when the bounding spheres (or a plane and a sphere) are farther apart than `margin`
/// (`mj_filterSphere`).
#[inline]
pub fn filter_sphere(
    m: &CollisionModel,
    xpos: &[[f64; 3]],
    xmat: &[[f64; 9]],
    g1: usize,
    g2: usize,
    margin: f64,
) -> bool {
    let (r1, r2) = (m.geom_rbound[g1], m.geom_rbound[g2]);
    if r1 > 0.0 && r2 > 0.0 {
        let (p1, p2) = (&xpos[g1], &xpos[g2]);
        let dif = [p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]];
        let distsqr = dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2];
        let bound = r1 + r2 + margin;
        return distsqr > bound * bound;
    }
    if m.geom_type[g1] == GeomType::Plane && r2 > 0.0 && plane_geom_dist(xpos, xmat, g1, g2) > margin + r2 {
        return true;
    }
    if m.geom_type[g2] == GeomType::Plane && r1 > 0.0 && plane_geom_dist(xpos, xmat, g2, g1) > margin + r1 {
        return true;
    }
    false
}

/// Whether two geoms' local boxes, placed at their world poses, overlap within `margin` along
/// the six face normals (`mj_collideOBB` without the cached products, as the mid-phase leaves
/// call it). A fully infinite box always overlaps; a partly infinite one is only tested along
/// the other box's normals.
pub fn collide_obb(aabb: [&[f64; 6]; 2], xpos: [&[f64; 3]; 2], xmat: [&[f64; 9]; 2], margin: f64) -> bool {
    let inf = |b: &[f64; 6]| [b[3] >= MAXVAL, b[4] >= MAXVAL, b[5] >= MAXVAL];
    let (inf1, inf2) = (inf(aabb[0]), inf(aabb[1]));
    if (inf1[0] && inf1[1] && inf1[2]) || (inf2[0] && inf2[1] && inf2[2]) {
        return true;
    }
    let infinite = [inf1[0] || inf1[1] || inf1[2], inf2[0] || inf2[1] || inf2[2]];

    // box centres in world coordinates
    let mut center = [[0.0; 3]; 2];
    for i in 0..2 {
        let c = mul_mat_vec3(xmat[i], &[aabb[i][0], aabb[i][1], aabb[i][2]]);
        center[i] = [c[0] + xpos[i][0], c[1] + xpos[i][1], c[2] + xpos[i][2]];
    }
    // face normals in world coordinates: columns of the orientation
    let mut normal = [[[0.0; 3]; 3]; 2];
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..3 {
                normal[i][j][k] = xmat[i][3 * k + j];
            }
        }
    }

    for j in 0..2 {
        if infinite[1 - j] {
            continue;
        }
        for k in 0..3 {
            let axis = &normal[j][k];
            let mut proj = [0.0; 2];
            let mut radius = [0.0; 2];
            for i in 0..2 {
                proj[i] = dot3(&center[i], axis);
                radius[i] = (aabb[i][3] * dot3(&normal[i][0], axis)).abs()
                    + (aabb[i][4] * dot3(&normal[i][1], axis)).abs()
                    + (aabb[i][5] * dot3(&normal[i][2], axis)).abs();
            }
            if radius[0] + radius[1] + margin < (proj[1] - proj[0]).abs() {
                return false;
            }
        }
    }
    true
}

/// The body-pair rules of `filterBodyPair`; true to discard. Arguments per body: weld body, the
/// weld body of its weld body's parent, asleep, dofs of the weld body.
#[allow(clippy::too_many_arguments)]
pub fn filter_body_pair(
    weld1: usize,
    weldparent1: usize,
    asleep1: bool,
    dofnum1: usize,
    weld2: usize,
    weldparent2: usize,
    asleep2: bool,
    dofnum2: usize,
    dsbl_filterparent: bool,
) -> bool {
    // welded together
    if weld1 == weld2 {
        return true;
    }
    // neither can move: no force could act
    if dofnum1 == 0 && dofnum2 == 0 {
        return true;
    }
    if asleep1 && asleep2 {
        return true;
    }
    // asleep against the static world (mocap bodies have a nonzero weld body and still wake)
    if (asleep1 && weld2 == 0) || (asleep2 && weld1 == 0) {
        return true;
    }
    // parent and child, unless the world is involved or the filter is disabled
    !dsbl_filterparent && weld1 != 0 && weld2 != 0 && (weld1 == weldparent2 || weld2 == weldparent1)
}
