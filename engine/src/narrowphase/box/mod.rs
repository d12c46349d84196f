//! Box colliders: sphere-box, capsule-box and box-box, as in MuJoCo 4.0.0's
//! `engine_collision_box.c`.
//!
//! Each pair has a thin accessor with the narrowphase signature ([`sphere_box`],
//! [`capsule_box`], [`box_box`]) that pulls pose and size out of the two [`Geom`]s, and a kernel
//! on plain arrays ([`raw_sphere_box`], [`raw_capsule_box`], [`raw_box_box`]) that does the
//! geometry, so the kernels can be tested (and reused, e.g. by flex collisions) alone.
//!
//! Conventions, all MuJoCo's:
//! - geom 1 has the lower type number (sphere < capsule < box), and every contact normal points
//!   from geom 1 to geom 2;
//! - `dist` is the signed surface distance (negative when penetrating) and `pos` lies midway
//!   between the two surfaces;
//! - a pair function only sets the normal; the contact frame is completed with
//!   [`crate::math::frame_from_normal`] exactly as MuJoCo's driver does with `mju_makeFrame`;
//! - `margin` is the pair's margin plus gap: contacts are reported while `dist <= margin`
//!   (box-box adds a tiny rounding slack to its separation tests, see [`raw_box_box`]).
//!
//! Contact order is part of the contract: MuJoCo's constraint assembly depends on it, so each
//! kernel writes its contacts in the order the C code does.

mod boxbox;
mod capsule;
mod sphere;

pub use boxbox::raw_box_box;
pub use capsule::raw_capsule_box;
pub use sphere::raw_sphere_box;

use super::{CollideOptions, ContactPoint, Geom};
use crate::math::frame_from_normal;

/// Sphere (geom 1) against box (geom 2), MuJoCo's `mjc_SphereBox`: at most one contact.
pub fn sphere_box(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    raw_sphere_box(margin, &g1.pos, g1.size[0], &g2.pos, &g2.mat, &g2.size, out)
}

/// Capsule (geom 1) against box (geom 2), MuJoCo's `mjc_CapsuleBox`: at most two contacts.
pub fn capsule_box(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    raw_capsule_box(margin, &g1.pos, &g1.mat, &g1.size, &g2.pos, &g2.mat, &g2.size, out)
}

/// Box (geom 1) against box (geom 2), MuJoCo's `mjc_BoxBox`: at most eight contacts.
pub fn box_box(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    raw_box_box(margin, &g1.pos, &g1.mat, &g1.size, &g2.pos, &g2.mat, &g2.size, out)
}

/// Write contact `k` (dist, world position, world normal; frame completed from the normal)
/// and return `k + 1`, or return `k` unchanged when `out` has no room for it.
fn emit(out: &mut [ContactPoint], k: usize, dist: f64, pos: &[f64; 3], normal: &[f64; 3]) -> usize {
    match out.get_mut(k) {
        Some(c) => {
            *c = ContactPoint { dist, pos: *pos, frame: frame_from_normal(normal) };
            k + 1
        }
        None => k,
    }
}
