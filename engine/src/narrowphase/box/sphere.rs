//! Sphere against box (MuJoCo's `mjraw_SphereBox`).

use super::emit;
use crate::math::clip;
use crate::math::{mul_mat_t_vec3, mul_mat_vec3, normalize3, sub3, MINVAL};
use crate::narrowphase::ContactPoint;

/// Sphere (centre `center_w`, `radius`) against a box (pose `pos2`/`mat2`, half-sizes
/// `size2`); writes at most one contact to `out` and returns how many it wrote.
///
/// Algorithm (MuJoCo 4.0.0, `engine_collision_box.c`):
/// 1. Express the sphere centre in the box frame and clamp it into the box: the clamped point
///    is the closest point of the solid box.
/// 2. The unit vector from the centre to that point is the normal; its length `d` is the
///    centre's distance to the box. If `d - radius > margin` there is no contact.
/// 3. Centre outside the box (`d > MINVAL`): the contact sits midway between the box point and
///    the sphere's deepest point `centre + radius * normal`; distance `d - radius`.
/// 4. Centre inside the box: the nearest of the six faces (first in the order -x, +x, -y, +y,
///    -z, +z on ties) decides. The normal points into the box through that face (the sphere is
///    pushed out of it), the distance is `-(depth of the centre) - radius`, and the position is
///    the centre moved half of `radius - depth` along the normal.
/// 5. Rotate position and normal back to the world.
#[allow(clippy::too_many_arguments)]
pub fn raw_sphere_box(
    margin: f64,
    center_w: &[f64; 3],
    radius: f64,
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    size2: &[f64; 3],
    out: &mut [ContactPoint],
) -> usize {
    // Step 1: sphere centre in the box frame, and its clamp into the box.
    let center = mul_mat_t_vec3(mat2, &sub3(center_w, pos2));
    let mut clamped = center;
    for k in 0..3 {
        // MuJoCo skips the clamp on non-positive limits; box sizes are positive, but the same
        // rule keeps a degenerate size from producing an inverted interval.
        if size2[k] > 0.0 {
            clamped[k] = clip(clamped[k], -size2[k], size2[k]);
        }
    }

    // Step 2: direction and distance to the box.
    let mut dir = sub3(&clamped, &center);
    let dist = normalize3(&mut dir);
    if dist - radius > margin {
        return 0;
    }

    let (local_pos, normal_local, centre_dist) = if dist <= MINVAL {
        // Step 4: the centre is inside; pick the shallowest face. The initial bound exceeds any
        // face distance of a point inside the box.
        let mut closest = (size2[0] + size2[1] + size2[2]) * 2.0;
        let mut face = 0;
        for f in 0..6 {
            let side = if f % 2 == 1 { 1.0 } else { -1.0 };
            let depth = (side * size2[f / 2] - center[f / 2]).abs();
            if closest > depth {
                closest = depth;
                face = f;
            }
        }
        let mut nearest = [0.0; 3];
        nearest[face / 2] = if face % 2 == 1 { -1.0 } else { 1.0 };
        let shift = (radius - closest) / 2.0;
        let p = [center[0] + nearest[0] * shift, center[1] + nearest[1] * shift, center[2] + nearest[2] * shift];
        (p, nearest, -closest)
    } else {
        // Step 3: midpoint of the box point and the sphere's deepest point; the leading `0 +`
        // mirrors MuJoCo's accumulate-into-zero (it turns -0 into +0).
        let deepest = [center[0] + dir[0] * radius, center[1] + dir[1] * radius, center[2] + dir[2] * radius];
        let p = [
            (0.0 + clamped[0] * 0.5) + deepest[0] * 0.5,
            (0.0 + clamped[1] * 0.5) + deepest[1] * 0.5,
            (0.0 + clamped[2] * 0.5) + deepest[2] * 0.5,
        ];
        (p, dir, dist)
    };

    // Step 5: back to the world.
    let normal = mul_mat_vec3(mat2, &normal_local);
    let rotated = mul_mat_vec3(mat2, &local_pos);
    let pos = [rotated[0] + pos2[0], rotated[1] + pos2[1], rotated[2] + pos2[2]];
    emit(out, 0, centre_dist - radius, &pos, &normal)
}
