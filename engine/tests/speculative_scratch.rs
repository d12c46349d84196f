use specula_engine::math::IDENTITY9;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType};
use specula_engine::speculative::sweep::{min_half_extent, primitive_half_extents};
use specula_engine::speculative::*;
const H: f64 = 0.00125;
fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    let rbound = match ty { GeomType::Sphere => size[0], GeomType::Box => (size[0]*size[0]+size[1]*size[1]+size[2]*size[2]).sqrt(), _ => 0.0 };
    Geom { ty, size, pos, mat, rbound, hull: None }
}
fn swept(g: Geom<'static>, dx: [f64; 3], dw: [f64; 3]) -> SweptGeom<'static> {
    let half = primitive_half_extents(g.ty, &g.size).unwrap_or([f64::INFINITY; 3]);
    SweptGeom { geom: g, motion: GeomMotion { dx, dw }, min_half: min_half_extent(g.ty, &half) }
}
#[test]
fn scratch() {
    let opt = SpeculativeOptions { timestep: H, integrator: Integrator::Euler, refsafe: true, collide: CollideOptions { multiccd: true, ..CollideOptions::default() } };
    let p = PairParams { margin: 0.0, solref: [0.02, 1.0], solimp: [0.9, 0.95, 0.001, 0.5, 2.0] };
    for deg in [2.0f64, 5.0, 10.0] {
        for gap in [0.01, 0.005] {
            let a = deg.to_radians(); let (c, s) = (a.cos(), a.sin());
            let mat = [1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c];
            let low = 0.01 * (c + s);
            let plate = geom(GeomType::Box, [0.1, 0.1, 0.005], [0.0, 0.0, -0.005], IDENTITY9);
            let cube = geom(GeomType::Box, [0.01; 3], [0.0, 0.0, low + gap], mat);
            let mut out = [ContactPoint::default(); 8];
            let n = speculative_contacts(&swept(plate, [0.0;3], [0.0;3]), &swept(cube, [0.0, 0.0, -10.0 * H], [0.0; 3]), &p, &opt, |_, _| false, &mut out);
            println!("{deg} {gap} n={n} {:?}", out[..n].iter().map(|c| (c.dist, c.pos)).collect::<Vec<_>>());
        }
    }
}
