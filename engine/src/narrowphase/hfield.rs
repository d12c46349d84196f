//! Height field against a convex geom (MuJoCo's `mjc_ConvexHField`).
//!
//! The height field is cut into triangular prisms, two per grid cell: each prism's top is a
//! triangle of three neighbouring elevations, its bottom the same triangle at the field's base
//! depth. Only the cells under the geom's bounding box (in the field's frame, grown by the
//! margin) are visited, and each prism that reaches up to the geom is collided with it by the
//! general convex path (GJK/EPA, one contact per prism), everything in the height field's frame.
//!
//! What MuJoCo 4.0.0 does here, read from the released library (`mjc_ConvexHField`,
//! `mjc_prism_support`, `mjc_center`) where it differs from the 3.x source we learned the
//! algorithm from (`docs/measurements.md`, C7):
//! - the prism top is the elevation itself (3.x raised it by the margin); instead the prism
//!   object carries the pair margin like any other geom, so GJK inflates both shapes by half of
//!   it and the contact distance is `margin + depth`, as for other convex pairs;
//! - the bounding box of the geom is grown by the margin before the cell range is computed, and
//!   a prism is skipped when its three top elevations are all below `zmin - margin`;
//! - GJK starts from the prism's centroid (corners summed from zero, scaled by 1/6; C8).
//!
//! Which prisms and in which order (C9): rows from the bottom, columns left to right, per cell
//! the triangle through the upper row's new corner first; one contact per prism, at most 50.
//!
//! The order of the pieces follows MuJoCo's exactly (same rounding, same early exits), because
//! the prisms a geom meets and the order of its contacts are visible in the contact list.

use super::convex::{ccd, ConvexObj};
use super::{CollideOptions, ContactPoint, Geom, HFieldView, MAX_CONTACTS};
use crate::math::{add3, frame_from_normal, mul_mat_t_mat3, mul_mat_t_vec3, normalize3, scl3, sub3};

/// The geom's extent along the height field's axes: its support points along +-x, +-y, +-z (in
/// that order: support queries warm-start mesh searches, so the order matters).
struct Extent {
    xmin: f64,
    xmax: f64,
    ymin: f64,
    ymax: f64,
    zmin: f64,
    zmax: f64,
}

impl Extent {
    fn of(obj: &mut ConvexObj) -> Self {
        let xmax = obj.support(&[1.0, 0.0, 0.0])[0];
        let xmin = obj.support(&[-1.0, 0.0, 0.0])[0];
        let ymax = obj.support(&[0.0, 1.0, 0.0])[1];
        let ymin = obj.support(&[0.0, -1.0, 0.0])[1];
        let zmax = obj.support(&[0.0, 0.0, 1.0])[2];
        let zmin = obj.support(&[0.0, 0.0, -1.0])[2];
        Extent { xmin, xmax, ymin, ymax, zmin, zmax }
    }
}

/// The prism builder: a moving window over the grid, two elevations per column step.
struct Prisms<'a> {
    hf: HFieldView<'a>,
    dx: f64,
    dy: f64,
}

impl Prisms<'_> {
    /// Elevation of grid point (row `r`, column `c`) in the field's frame (0 if out of range,
    /// which a validated model never reaches).
    fn z(&self, r: usize, c: usize) -> f64 {
        let e = self.hf.data.get(r * self.hf.ncol + c).copied().unwrap_or(0.0);
        self.hf.size[2] * f64::from(e)
    }

    /// Shift the prism by one corner and put grid point (`r`, `c`) last, top and bottom.
    fn push(&self, prism: &mut [[f64; 3]; 6], r: usize, c: usize) {
        prism[0] = prism[1];
        prism[1] = prism[2];
        prism[3] = prism[4];
        prism[4] = prism[5];
        let x = self.dx * c as f64 - self.hf.size[0];
        let y = self.dy * r as f64 - self.hf.size[1];
        prism[2] = [x, y, -self.hf.size[3]];
        prism[5] = [x, y, self.z(r, c)];
    }
}

/// Height field (geom 1) against a sphere, capsule, ellipsoid, cylinder, box or mesh (geom 2),
/// same signature as the pair table: up to [`MAX_CONTACTS`] contacts, one per prism the geom
/// penetrates (within the margin), in row-then-column order of the cells.
pub fn convex_hfield(g1: &Geom, g2: &Geom, margin: f64, opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let Some(hf) = g1.hfield else { return 0 };
    if out.is_empty() || hf.nrow < 2 || hf.ncol < 2 {
        return 0;
    }
    let size = hf.size;
    let (pos1, mat1) = (&g1.pos, &g1.mat);

    // quick rejection: the geom's bounding sphere (grown by the margin) against the field's box
    let local_pos = mul_mat_t_vec3(mat1, &sub3(&g2.pos, pos1));
    let radius = margin + g2.rbound;
    if size[0] < local_pos[0] - radius
        || -size[0] > local_pos[0] + radius
        || size[1] < local_pos[1] - radius
        || -size[1] > local_pos[1] + radius
        || size[2] < local_pos[2] - radius
        || -size[3] > local_pos[2] + radius
    {
        return 0;
    }

    // the geom in the field's frame; the prism object carries the margin from the start
    let local = Geom { pos: local_pos, mat: mul_mat_t_mat3(mat1, &g2.mat), ..*g2 };
    let mut obj2 = ConvexObj::new(&local, 0.0);
    let mut obj1 = ConvexObj::new(g1, margin);

    // its bounding box in that frame, grown by the margin, against the field's box
    let e = Extent::of(&mut obj2);
    let (xmax, ymax, zmax) = (margin + e.xmax, margin + e.ymax, margin + e.zmax);
    let (xmin, ymin, zmin) = (e.xmin - margin, e.ymin - margin, e.zmin - margin);
    if xmin > size[0] || -size[0] > xmax || ymin > size[1] || -size[1] > ymax || zmin > size[2] || -size[3] > zmax {
        return 0;
    }

    // the cells under that box
    let (ncol1, nrow1) = ((hf.ncol - 1) as f64, (hf.nrow - 1) as f64);
    let (w, h) = (size[0] + size[0], size[1] + size[1]);
    // MuJoCo converts to a 32-bit int: out of range (or NaN) gives i32::MIN
    let cell = |v: f64| if (-2147483648.0..2147483648.0).contains(&v) { v as i64 } else { i64::from(i32::MIN) };
    let cmin = cell(((size[0] + xmin) / w * ncol1).floor()).max(0);
    let cmax = cell(((size[0] + xmax) / w * ncol1).ceil()).min(hf.ncol as i64 - 1);
    let rmin = cell(((size[1] + ymin) / h * nrow1).floor()).max(0);
    let rmax = cell(((size[1] + ymax) / h * nrow1).ceil()).min(hf.nrow as i64 - 1);
    if rmin >= rmax || cmax <= cmin {
        // no cell (a row without a column step makes no prism)
        return 0;
    }
    obj2.margin = margin;
    let grid = Prisms { hf, dx: w / ncol1, dy: h / nrow1 };
    let (cmin, cmax, rmin, rmax) = (cmin as usize, cmax as usize, rmin as usize, rmax as usize);

    let limit = out.len().min(MAX_CONTACTS);
    let mut ncon = 0;
    let mut prism = [[0.0; 3]; 6];
    for r in rmin..rmax {
        grid.push(&mut prism, r + 1, cmin);
        grid.push(&mut prism, r, cmin);
        for c in cmin + 1..=cmax {
            for row in [r + 1, r] {
                grid.push(&mut prism, row, c);
                // a prism whose top is entirely below the geom cannot touch it
                if prism[3][2] < zmin && prism[4][2] < zmin && prism[5][2] < zmin {
                    continue;
                }
                obj1.prism = prism;
                let Some(con) = prism_contact(&mut obj1, &mut obj2, opt, margin) else { continue };
                out[ncon] = to_world(&con, pos1, mat1);
                ncon += 1;
                if ncon >= limit {
                    return ncon;
                }
            }
        }
    }
    ncon
}

/// One prism's contact in the field's frame (`mjc_penetration` with one contact): distance,
/// position and normal, or `None` when the prism and the geom are apart.
fn prism_contact(
    obj1: &mut ConvexObj,
    obj2: &mut ConvexObj,
    opt: &CollideOptions,
    margin: f64,
) -> Option<(f64, [f64; 3], [f64; 3])> {
    let r = ccd(obj1, obj2, opt, 1, 0.0);
    let st = &r.status;
    // a NaN distance (a prism of NaN elevations) makes no contact, as in MuJoCo (C11)
    if r.dist.is_nan() || r.dist >= 0.0 || st.nx == 0 {
        return None;
    }
    let pos = scl3(&add3(&st.x1[0], &st.x2[0]), 0.5);
    let mut normal = sub3(&st.x1[0], &st.x2[0]);
    normalize3(&mut normal);
    Some((margin + st.dist[0], pos, normal))
}

/// A contact from the field's frame into the world: normal rotated, position rotated and moved.
fn to_world(con: &(f64, [f64; 3], [f64; 3]), pos1: &[f64; 3], mat1: &[f64; 9]) -> ContactPoint {
    let (dist, p, n) = con;
    let rot = |v: &[f64; 3]| {
        [
            mat1[0] * v[0] + mat1[1] * v[1] + mat1[2] * v[2],
            mat1[3] * v[0] + mat1[4] * v[1] + mat1[5] * v[2],
            mat1[6] * v[0] + mat1[7] * v[1] + mat1[8] * v[2],
        ]
    };
    let normal = rot(n);
    let pw = rot(p);
    let pos = [pw[0] + pos1[0], pw[1] + pos1[1], pw[2] + pos1[2]];
    ContactPoint { dist: *dist, pos, frame: frame_from_normal(&normal) }
}
