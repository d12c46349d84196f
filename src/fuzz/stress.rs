//! The speculative-stress variant of a generated scene (`specula fuzz --speculative-stress`):
//! the scene of a seed, then redrawn where speculative contacts are decided, from a stream of
//! its own so that the plain generator's scenes stay what they were.
//!
//! What it draws that the plain generator rarely combines: speculative contacts always on,
//! native CCD off in 40 % of the scenes (the broadphase then stops sweeping, `docs/measurements.md`
//! S13), `override` in half of them with every `o_margin` the plain generator knows, margins and
//! gaps on most geoms (the gap band), thin plates among the box obstacles, and thrown bodies up
//! to four times faster with more of them spinning.

use super::scene::{Rng, Scene, Shape, Surface};

/// The stress variant of `sc`, the scene of `seed` (see the module doc).
pub fn speculative_stress(seed: u64, mut sc: Scene) -> Scene {
    let mut r = Rng::new(seed ^ 0x57E5_5000_0000_0000);
    sc.opt.speculative = true;
    sc.opt.nativeccd = !r.chance(0.4);
    sc.opt.multiccd = r.chance(0.5);
    sc.opt.override_ = r.chance(0.5).then(|| {
        let lo = r.range(0.6, 0.95);
        (
            r.pick(&[0.0, 0.001, 0.005, 0.01]),
            [r.log(0.002, 0.05), r.range(0.5, 1.2)],
            [lo, r.range(lo, 0.999), r.log(0.0005, 0.01), 0.5, 2.0],
            [r.range(0.1, 1.2), r.range(0.1, 1.2), r.log(1e-3, 0.05), r.log(1e-5, 1e-3), r.log(1e-5, 1e-3)],
        )
    });
    let band = |r: &mut Rng, s: &mut Surface| {
        if r.chance(0.5) {
            s.gap = Some(r.pick(&[0.0005, 0.002, 0.005, 0.01]));
        }
        if r.chance(0.4) {
            s.margin = Some(r.pick(&[0.0005, 0.001, 0.003, 0.01]));
        }
    };
    if let Some(f) = sc.floor.as_mut() {
        band(&mut r, &mut f.surface);
    }
    for o in &mut sc.obstacles {
        band(&mut r, &mut o.geom.surface);
        // thin plates: the smallest half-size of a box obstacle down to a millimetre or less
        if let Shape::Box(size) = &mut o.geom.shape {
            if r.chance(0.4) {
                let k = (0..3).fold(0, |k, j| if size[j] < size[k] { j } else { k });
                size[k] = r.log(0.0003, 0.002);
            }
        }
    }
    for b in &mut sc.bodies {
        for g in b.geoms.iter_mut().chain(b.links.iter_mut().flat_map(|l| l.geoms.iter_mut())) {
            band(&mut r, &mut g.surface);
        }
        let k = r.log(1.0, 4.0);
        b.vel = [b.vel[0] * k, b.vel[1] * k, b.vel[2] * k];
        if b.spin == [0.0; 3] && r.chance(0.3) {
            let w = r.log(10.0, 800.0);
            let d = r.direction();
            b.spin = [d[0] * w, d[1] * w, d[2] * w];
        }
    }
    sc
}
