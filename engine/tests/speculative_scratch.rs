use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType};
use specula_engine::speculative::*;
const H: f64 = 0.00125;
#[test]
fn random_cases() {
    let txt = std::fs::read_to_string("/tmp/sp/cases.txt").unwrap();
    let opt = SpeculativeOptions { timestep: H, integrator: Integrator::Euler, refsafe: true, collide: CollideOptions { multiccd: true, ..CollideOptions::default() } };
    let p = PairParams { margin: 0.0, solref: [0.02, 1.0], solimp: [0.9, 0.95, 0.001, 0.5, 2.0] };
    let (mut ok, mut bad) = (0, 0);
    for (li, line) in txt.lines().enumerate() {
        let v: Vec<f64> = line.split_whitespace().map(|s| s.parse().unwrap()).collect();
        let mut i = 0;
        let mut take = |n: usize| { let s = v[i..i + n].to_vec(); i += n; s };
        let rd = |s: Vec<f64>| -> [f64; 3] { [s[0], s[1], s[2]] };
        let mt = GeomType::from_index(take(1)[0] as usize);
        let (msize, mpos) = (rd(take(3)), rd(take(3)));
        let mm = take(9); let mrb = take(1)[0]; let maabb = rd(take(3));
        let ot = GeomType::from_index(take(1)[0] as usize);
        let (osize, opos) = (rd(take(3)), rd(take(3)));
        let om = take(9); let orb = take(1)[0]; let oaabb = rd(take(3));
        let (dx, dw) = (rd(take(3)), rd(take(3)));
        let nc = take(1)[0] as usize;
        let mut want = vec![];
        for _ in 0..nc { let k = take(7); want.push(k); }
        let mut mmat = [0.0; 9]; mmat.copy_from_slice(&mm);
        let mut omat = [0.0; 9]; omat.copy_from_slice(&om);
        let mg = Geom { ty: mt.unwrap(), size: msize, pos: mpos, mat: mmat, rbound: mrb, hull: None };
        let og = Geom { ty: ot.unwrap(), size: osize, pos: opos, mat: omat, rbound: orb, hull: None };
        let half = |g: &Geom, a: [f64; 3]| sweep::min_half_extent(g.ty, &a);
        let sm = SweptGeom { geom: mg, motion: GeomMotion { dx, dw }, min_half: half(&mg, maabb) };
        let so = SweptGeom { geom: og, motion: GeomMotion::ZERO, min_half: half(&og, oaabb) };
        let (a, b) = if (og.ty as i32) <= (mg.ty as i32) { (so, sm) } else { (sm, so) };
        let mut out = [ContactPoint::default(); 8];
        let n = speculative_contacts(&a, &b, &p, &opt, |_, _| false, &mut out);
        let same_n = n == nc;
        let mut maxerr: f64 = 0.0;
        if same_n {
            for (c, w) in out[..n].iter().zip(&want) {
                maxerr = maxerr.max((c.dist - w[0]).abs() / w[0].abs().max(1.0));
                for k in 0..3 { maxerr = maxerr.max((c.pos[k] - w[1 + k]).abs()); maxerr = maxerr.max((c.frame[k] - w[4 + k]).abs()); }
            }
        }
        if same_n && maxerr < 1e-6 { ok += 1 } else {
            bad += 1;
            println!("case {li} {:?} vs {:?}: n {n} vs {nc}, maxerr {maxerr:e}", mt, ot);
            for c in &out[..n] { println!("   mine {:.9} {:?} {:?}", c.dist, c.pos, c.normal()); }
            for w in &want { println!("   mj   {:.9} {:?}", w[0], &w[1..]); }
            let em1 = sweep::effective_motion(a.geom.ty, &a.motion);
            let em2 = sweep::effective_motion(b.geom.ty, &b.motion);
            if let Some(imp) = advance(&a.geom, &em1, &b.geom, &em2, 0.0, &opt.collide) {
                let (b0, k0) = step_damping_stiffness(&p.solref, H, true);
                let n = imp.normal;
                let dot = |x: &[f64; 3], y: &[f64; 3]| x[0]*y[0]+x[1]*y[1]+x[2]*y[2];
                let sub = |x: &[f64; 3], y: &[f64; 3]| [x[0]-y[0], x[1]-y[1], x[2]-y[2]];
                let cr = |x: &[f64; 3], y: &[f64; 3]| [x[1]*y[2]-x[2]*y[1], x[2]*y[0]-x[0]*y[2], x[0]*y[1]-x[1]*y[0]];
                let lin = dot(&n, &sub(&em1.dx, &em2.dx));
                let r1_0 = sub(&imp.x_0[0], &a.geom.pos); let r2_0 = sub(&imp.x_0[1], &b.geom.pos);
                let inst0 = dot(&n, &sub(&[em1.dx[0]+cr(&em1.dw,&r1_0)[0], em1.dx[1]+cr(&em1.dw,&r1_0)[1], em1.dx[2]+cr(&em1.dw,&r1_0)[2]], &[em2.dx[0]+cr(&em2.dw,&r2_0)[0], em2.dx[1]+cr(&em2.dw,&r2_0)[1], em2.dx[2]+cr(&em2.dw,&r2_0)[2]]));
                let gapc = (imp.dist0 - imp.dist) / imp.t;
                { let w = want.first().cloned().unwrap_or(vec![0.0]);
                    let hv_mj = -w[0] * k0 / ((1.0 - imp.t) - b0);
                    println!("   t {:.12} steps {} d0 {:.6e} dt {:.6e} | hv_mj {:.9e} chord {:.9e} lin {:.9e} inst0 {:.9e} gapc {:.9e}", imp.t, imp.steps, imp.dist0, imp.dist, hv_mj, imp.h_vn(), lin, inst0, gapc);
                }
            }
        }
    }
    println!("ok {ok} bad {bad}");
}
