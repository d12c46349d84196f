//! Properties the contact rows must have on a hand-made model (the bit-for-bit comparison with
//! the library is the root crate's): `J qvel` is the contact-frame relative velocity computed
//! directly from the joints, sparse rows are the dense rows' non-zero columns, pyramid edges are
//! the normal plus and minus friction times the tangent rows, the counting pass agrees with the
//! rows appended, and welded pairs get no rows.

use specula_engine::dynamics::constraint::contact::{self, ContactModel, ContactScratch, ContactState};
use specula_engine::dynamics::constraint::jacobian::{JacModel, JacState};
use specula_engine::dynamics::constraint::{cnstr, Contact, EfcRows};

/// The joints of the hand-made model, in dof order: hinge (axis, anchor) or slide (axis).
enum Dof {
    Hinge([f64; 3], [f64; 3]),
    Slide([f64; 3]),
}

// Bodies: 0 world; 1 hinge z + slide (dofs 0, 1); 2 child of 1, hinge y (dof 2); 3 child of 2
// without joints (welded to 2); 4 simple, three slides (dofs 3-5); 5 simple, one slide (dof 6).
const WELD: [i32; 6] = [0, 1, 2, 2, 4, 5];
const ROOT: [i32; 6] = [0, 1, 1, 1, 4, 5];
const TREE: [i32; 6] = [-1, 0, 0, 0, 1, 2];
const DOFNUM: [i32; 6] = [0, 2, 1, 0, 3, 1];
const DOFADR: [i32; 6] = [-1, 0, 2, -1, 3, 6];
const SIMPLE: [u8; 6] = [1, 0, 0, 0, 1, 1];
const PARENT: [i32; 7] = [-1, 0, 1, -1, 3, 4, -1];
const GEOM_BODY: [i32; 6] = [0, 1, 2, 3, 4, 5];
const NV: usize = 7;

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    let n = dot(a, a).sqrt();
    [a[0] / n, a[1] / n, a[2] / n]
}

fn dofs() -> Vec<Dof> {
    let t = 0.4f64;
    vec![
        Dof::Hinge([0.0, 0.0, 1.0], [0.0, 0.0, 0.0]),
        Dof::Slide([t.cos(), t.sin(), 0.0]),
        Dof::Hinge(unit([-t.sin(), t.cos(), 0.2]), [0.9, 0.4, 0.1]),
        Dof::Slide([1.0, 0.0, 0.0]),
        Dof::Slide([0.0, 1.0, 0.0]),
        Dof::Slide([0.0, 0.0, 1.0]),
        Dof::Slide(unit([0.1, -0.2, 1.0])),
    ]
}

/// Subtree centres of mass (only the roots' are read).
fn subtree_com() -> Vec<f64> {
    vec![0.0, 0.0, 0.0, 0.3, 0.1, 0.2, 0.5, 0.2, 0.1, 0.7, 0.3, 0.1, 2.0, 2.0, 0.5, -1.0, 0.0, 1.0]
}

/// `cdof` as MuJoCo defines it: rotation, then the velocity of the point at the tree's com.
fn cdof(dofs: &[Dof], com: &[f64]) -> Vec<f64> {
    let owner = [1usize, 1, 2, 4, 4, 4, 5];
    let mut out = Vec::new();
    for (d, dof) in dofs.iter().enumerate() {
        let r = 3 * ROOT[owner[d]] as usize;
        let c = [com[r], com[r + 1], com[r + 2]];
        match *dof {
            Dof::Hinge(a, p) => {
                out.extend(a);
                out.extend(cross(a, sub(c, p)));
            }
            Dof::Slide(a) => {
                out.extend([0.0; 3]);
                out.extend(a);
            }
        }
    }
    out
}

/// Velocity (linear at `x`, angular) of `body` under `qvel`, from the joints directly.
fn body_velocity(dofs: &[Dof], qvel: &[f64], body: usize, x: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let (mut v, mut w) = ([0.0; 3], [0.0; 3]);
    let w_body = WELD[body] as usize;
    if DOFNUM[w_body] == 0 {
        return (v, w);
    }
    let mut d = DOFADR[w_body] + DOFNUM[w_body] - 1;
    while d >= 0 {
        let q = qvel[d as usize];
        let (lin, ang) = match dofs[d as usize] {
            Dof::Hinge(a, p) => (cross(a, sub(x, p)), a),
            Dof::Slide(a) => (a, [0.0; 3]),
        };
        for k in 0..3 {
            v[k] += q * lin[k];
            w[k] += q * ang[k];
        }
        d = PARENT[d as usize];
    }
    (v, w)
}

/// A contact frame: normal first, then two tangents.
fn frame(n: [f64; 3]) -> [f64; 9] {
    let n = unit(n);
    let t1 = unit(cross(n, [0.3, 0.9, 0.1]));
    let t2 = cross(n, t1);
    [n[0], n[1], n[2], t1[0], t1[1], t1[2], t2[0], t2[1], t2[2]]
}

fn contacts(dim: i32) -> Vec<Contact> {
    let pairs = [(1, 3), (0, 2), (4, 5), (2, 3), (3, 4), (1, 4)];
    pairs
        .iter()
        .enumerate()
        .map(|(i, &(g1, g2))| Contact {
            dist: -0.001 * i as f64,
            pos: [0.2 + 0.1 * i as f64, -0.3, 0.05 * i as f64],
            frame: frame([0.1 * i as f64, 0.2, 1.0]),
            includemargin: 0.01,
            friction: [0.8, 0.7, 0.01, 0.002, 0.003],
            dim,
            geom: [g1, g2],
            flex: [-1, -1],
            elem: [-1, -1],
            vert: [-1, -1],
            // the last one is excluded by collision and must be left alone
            exclude: i32::from(i == 5),
            efc_address: -1,
            ..Contact::default()
        })
        .collect()
}

/// Owned `efc_*` arrays for [`EfcRows`].
struct Efc {
    ty: Vec<i32>,
    id: Vec<i32>,
    rownnz: Vec<i32>,
    rowadr: Vec<i32>,
    rowsuper: Vec<i32>,
    colind: Vec<i32>,
    j: Vec<f64>,
    pos: Vec<f64>,
    margin: Vec<f64>,
    fl: Vec<f64>,
    nefc: usize,
}

fn run(dim: i32, sparse: bool, pyramidal: bool) -> (Efc, Vec<Contact>, (usize, usize)) {
    let dofs = dofs();
    let com = subtree_com();
    let cdof = cdof(&dofs, &com);
    let m = ContactModel {
        disable_contact: false,
        geom_bodyid: &GEOM_BODY,
        body_treeid: &TREE,
        jac: JacModel {
            nv: NV,
            body_weldid: &WELD,
            body_rootid: &ROOT,
            body_dofnum: &DOFNUM,
            body_dofadr: &DOFADR,
            body_simple: &SIMPLE,
            dof_parentid: &PARENT,
        },
    };
    let st = ContactState { jac: JacState { cdof: &cdof, subtree_com: &com } };
    let mut cons = contacts(dim);
    let mut scratch = ContactScratch::default();
    let counted = contact::count(&m, &cons, sparse, pyramidal, &mut scratch);
    let n = counted.0;
    let nj = if sparse { counted.1 } else { n * NV };
    let mut e = Efc {
        ty: vec![0; n],
        id: vec![0; n],
        rownnz: vec![0; n],
        rowadr: vec![0; n],
        rowsuper: vec![0; n],
        colind: vec![0; nj],
        j: vec![0.0; nj],
        pos: vec![0.0; n],
        margin: vec![0.0; n],
        fl: vec![0.0; n],
        nefc: 0,
    };
    let mut rows = EfcRows {
        sparse,
        nv: NV,
        nefc: 0,
        ne: 0,
        nf: 0,
        nl: 0,
        efc_type: &mut e.ty,
        efc_id: &mut e.id,
        efc_j_rownnz: &mut e.rownnz,
        efc_j_rowadr: &mut e.rowadr,
        efc_j_rowsuper: &mut e.rowsuper,
        efc_j_colind: &mut e.colind,
        efc_j: &mut e.j,
        efc_pos: &mut e.pos,
        efc_margin: &mut e.margin,
        efc_frictionloss: &mut e.fl,
    };
    contact::instantiate(&m, &st, &mut cons, sparse, pyramidal, &mut rows, &mut scratch);
    e.nefc = rows.nefc;
    (e, cons, counted)
}

/// Dense row `r` of either layout.
fn dense_row(e: &Efc, sparse: bool, r: usize) -> Vec<f64> {
    if !sparse {
        return e.j[r * NV..(r + 1) * NV].to_vec();
    }
    let mut row = vec![0.0; NV];
    let adr = e.rowadr[r] as usize;
    for k in 0..e.rownnz[r] as usize {
        row[e.colind[adr + k] as usize] = e.j[adr + k];
    }
    row
}

#[test]
fn rows_give_the_relative_velocity_in_the_contact_frame() {
    let dofs = dofs();
    let qvel = [0.7, -1.3, 2.1, 0.4, -0.6, 0.9, -1.7];
    for sparse in [false, true] {
        let (e, cons, _) = run(6, sparse, false);
        for con in cons.iter().filter(|c| c.exclude == 0) {
            let b = |g: i32| GEOM_BODY[g as usize] as usize;
            let (v1, w1) = body_velocity(&dofs, &qvel, b(con.geom[0]), con.pos);
            let (v2, w2) = body_velocity(&dofs, &qvel, b(con.geom[1]), con.pos);
            let (dv, dw) = (sub(v2, v1), sub(w2, w1));
            for k in 0..6 {
                let f = &con.frame[3 * (k % 3)..3 * (k % 3) + 3];
                let want = dot([f[0], f[1], f[2]], if k < 3 { dv } else { dw });
                let row = dense_row(&e, sparse, con.efc_address as usize + k);
                let got: f64 = row.iter().zip(&qvel).map(|(a, q)| a * q).sum();
                assert!((got - want).abs() < 1e-12, "sparse {sparse} row {k}: {got} vs {want}");
            }
        }
    }
}

#[test]
fn sparse_rows_are_the_dense_rows_nonzero_columns() {
    for (dim, pyramidal) in [(1, false), (3, true), (4, false), (6, true), (6, false)] {
        let (d, dc, _) = run(dim, false, pyramidal);
        let (s, sc, _) = run(dim, true, pyramidal);
        assert_eq!(dc, sc);
        assert_eq!((d.nefc, &d.ty[..d.nefc], &d.id[..d.nefc]), (s.nefc, &s.ty[..s.nefc], &s.id[..s.nefc]));
        for r in 0..s.nefc {
            let dense = &d.j[r * NV..(r + 1) * NV];
            let adr = s.rowadr[r] as usize;
            let cols = &s.colind[adr..adr + s.rownnz[r] as usize];
            for (c, &v) in dense.iter().enumerate() {
                match cols.iter().position(|&k| k as usize == c) {
                    Some(k) => assert_eq!(v.to_bits(), s.j[adr + k].to_bits(), "row {r} col {c}"),
                    None => assert_eq!(v, 0.0, "row {r} col {c} outside the chain"),
                }
            }
        }
    }
}

#[test]
fn pyramid_edges_are_normal_plus_minus_friction_tangent() {
    for dim in [3, 4, 6] {
        for sparse in [false, true] {
            let (p, pc, _) = run(dim, sparse, true);
            let (e, ec, _) = run(dim, sparse, false);
            for (cp, ce) in pc.iter().zip(&ec).filter(|(c, _)| c.exclude == 0) {
                let normal = dense_row(&e, sparse, ce.efc_address as usize);
                for k in 1..dim as usize {
                    let mu = cp.friction[k - 1];
                    let dir = dense_row(&e, sparse, ce.efc_address as usize + k);
                    let r = cp.efc_address as usize + 2 * (k - 1);
                    let (plus, minus) = (dense_row(&p, sparse, r), dense_row(&p, sparse, r + 1));
                    for c in 0..NV {
                        assert_eq!(plus[c].to_bits(), (normal[c] + mu * dir[c]).to_bits());
                        assert_eq!(minus[c].to_bits(), (normal[c] + -mu * dir[c]).to_bits());
                    }
                    assert_eq!((p.ty[r], p.pos[r], p.pos[r + 1]), (cnstr::CONTACT_PYRAMIDAL, cp.dist, cp.dist));
                }
            }
        }
    }
}

#[test]
fn counts_addresses_and_welded_pairs() {
    for dim in [1, 3, 4, 6] {
        for pyramidal in [false, true] {
            for sparse in [false, true] {
                let (e, cons, (nc, nnz)) = run(dim, sparse, pyramidal);
                // the welded pair (bodies 2 and 3) has no rows; the collision-excluded one is untouched
                assert_eq!((cons[3].exclude, cons[3].efc_address), (3, -1));
                assert_eq!((cons[5].exclude, cons[5].efc_address), (1, -1));
                let per = if dim == 1 {
                    1
                } else if pyramidal {
                    2 * (dim as usize - 1)
                } else {
                    dim as usize
                };
                let included = cons.iter().filter(|c| c.exclude == 0).count();
                assert_eq!(e.nefc, included * per);
                if sparse {
                    // the counting pass already skips the welded pair
                    assert_eq!(nc, e.nefc);
                    assert_eq!(nnz, e.rownnz[..e.nefc].iter().map(|&n| n as usize).sum::<usize>());
                    // the pair within one tree keeps only the dof the bodies do not share
                    let a = cons[0].efc_address as usize;
                    assert_eq!(&e.colind[e.rowadr[a] as usize..][..e.rownnz[a] as usize], &[2]);
                } else {
                    // dense counting allots rows to every contact collision included
                    assert_eq!((nc, nnz), (e.nefc + per, 0));
                }
                let mut next = 0;
                for (i, c) in cons.iter().enumerate().filter(|(_, c)| c.exclude == 0) {
                    assert_eq!(c.efc_address as usize, next);
                    assert!(e.id[next..next + per].iter().all(|&id| id == i as i32));
                    assert_eq!(e.margin[next], c.includemargin);
                    next += per;
                }
            }
        }
    }
}
