//! The sparse Newton Hessian (`specula_engine::dynamics::solver::newton_sparse`) alone against
//! the library's exported `mju_sqrMatTDSparseSymbolic`/`Numeric` (4.0.0's 15- and 17-argument
//! forms) and `mju_addToMatSparse`, as `mj_solPrimal` calls them (`docs/measurements.md` D53):
//! pattern and values bit for bit.

#[cfg(test)]
mod tests {
    use crate::mj::{Data, Model};
    use mujoco_sys as sys;
    use specula_engine::dynamics::solver::cone_sparse::ConeRows;
    use specula_engine::dynamics::solver::newton_sparse::{Blocks, SparseHessian};

    use super::super::sparse_lib::*;

    /// A sparse matrix by rows (values, counts, starts, columns increasing).
    #[derive(Default)]
    struct Csr {
        val: Vec<f64>,
        nnz: Vec<i32>,
        adr: Vec<i32>,
        col: Vec<i32>,
    }

    impl Csr {
        fn push_row(&mut self, cols: &[i32], s: &mut Stream) {
            self.adr.push(self.col.len() as i32);
            self.nnz.push(cols.len() as i32);
            self.col.extend_from_slice(cols);
            self.val.extend(cols.iter().map(|_| s.next()));
        }
    }

    /// Contact-like rows: each touches one or two bodies of 6 dofs (some rows repeated, as a
    /// pyramid's edges are), or a single dof.
    fn jacobian(s: &mut Stream, nv: usize, nefc: usize) -> Csr {
        let nb = nv / 6;
        let mut j = Csr::default();
        while j.nnz.len() < nefc {
            let mut cols: Vec<i32> = Vec::new();
            if s.below(5) == 0 {
                cols.push(s.below(nv) as i32);
            } else {
                for _ in 0..1 + s.below(2) {
                    let b = s.below(nb);
                    cols.extend((6 * b..6 * b + 6).map(|c| c as i32));
                }
                cols.sort_unstable();
                cols.dedup();
            }
            for _ in 0..1 + s.below(4) {
                if j.nnz.len() < nefc {
                    j.push_row(&cols, s);
                }
            }
        }
        j
    }

    /// A block-diagonal inertia pattern (one dense lower 6 x 6 block per body, the rest diagonal).
    fn inertia(s: &mut Stream, nv: usize) -> Csr {
        let mut m = Csr::default();
        for r in 0..nv {
            let first = if r < nv / 6 * 6 { r / 6 * 6 } else { r };
            let cols: Vec<i32> = (first..=r).map(|c| c as i32).collect();
            m.push_row(&cols, s);
        }
        for k in 0..nv {
            let last = (m.adr[k] + m.nnz[k] - 1) as usize;
            m.val[last] += 4.0;
        }
        m
    }

    /// `res = H^-1 vec` through the library's symbolic and numeric factors of `h` and its solve,
    /// as `mj_solPrimal` chains them (the upper pattern from `mju_transposeSparse`).
    fn library_solve(d: *mut sys::mjData, n: usize, h: (&[f64], &[i32], &[i32], &[i32]), vec: &[f64], res: &mut [f64]) {
        let (hv, hn, ha, hc) = h;
        let (mut un, mut ua, mut uc) = (vec![0; n], vec![0; n], vec![0; hc.len()]);
        let (mut ln, mut la, mut tn, mut ta) = (vec![0; n], vec![0; n], vec![0; n], vec![0; n]);
        let null = std::ptr::null_mut();
        // SAFETY: arrays of the sizes the library reads and writes (counted before filled).
        unsafe {
            let nu = std::ptr::null_mut();
            mju_transposeSparse(
                nu,
                std::ptr::null(),
                n as i32,
                n as i32,
                un.as_mut_ptr(),
                ua.as_mut_ptr(),
                uc.as_mut_ptr(),
                nu.cast(),
                hn.as_ptr(),
                ha.as_ptr(),
                hc.as_ptr(),
            );
            let nl = mju_cholFactorSymbolic(
                null,
                ln.as_mut_ptr(),
                la.as_mut_ptr(),
                null,
                tn.as_mut_ptr(),
                ta.as_mut_ptr(),
                null,
                un.as_ptr(),
                ua.as_ptr(),
                uc.as_ptr(),
                n as i32,
                d,
            ) as usize;
            let (mut lc, mut tc, mut map) = (vec![0; nl], vec![0; nl], vec![0; nl]);
            mju_cholFactorSymbolic(
                lc.as_mut_ptr(),
                ln.as_mut_ptr(),
                la.as_mut_ptr(),
                tc.as_mut_ptr(),
                tn.as_mut_ptr(),
                ta.as_mut_ptr(),
                map.as_mut_ptr(),
                un.as_ptr(),
                ua.as_ptr(),
                uc.as_ptr(),
                n as i32,
                d,
            );
            let (mut l, mut dense) = (vec![0.0; nl], vec![0.0; n]);
            mju_cholFactorNumeric(
                l.as_mut_ptr(),
                n as i32,
                1e-15,
                ln.as_ptr(),
                la.as_ptr(),
                lc.as_ptr(),
                tn.as_ptr(),
                ta.as_ptr(),
                tc.as_ptr(),
                map.as_ptr(),
                hv.as_ptr(),
                hn.as_ptr(),
                ha.as_ptr(),
                hc.as_ptr(),
                dense.as_mut_ptr(),
            );
            mju_cholSolveSparse(
                res.as_mut_ptr(),
                l.as_ptr(),
                vec.as_ptr(),
                n as i32,
                ln.as_ptr(),
                la.as_ptr(),
                lc.as_ptr(),
            );
        }
    }

    /// The library's `H` (symbolic, numeric, `+ M`) and factor against the Rust ones for one case.
    fn compare_case(
        d: *mut sys::mjData,
        h: &mut SparseHessian,
        s: &mut Stream,
        (j, m): (&Csr, &Csr),
        efc_d: &[f64],
        st: &[i32],
        case: usize,
    ) {
        let (nv, nefc) = (m.nnz.len(), j.nnz.len());
        let dd: Vec<f64> = (0..nefc).map(|i| if st[i] == 1 { efc_d[i] } else { 0.0 }).collect();
        // the transpose and supernodes as mj_solPrimal makes them
        let (mut t, mut tn, mut ta, mut tc, mut tsup) =
            (vec![0.0; j.col.len()], vec![0; nv], vec![0; nv], vec![0; j.col.len()], vec![0; nv]);
        let mut jsup = vec![0; nefc];
        // SAFETY: arrays of the sizes the library reads and writes.
        unsafe {
            mju_transposeSparse(
                t.as_mut_ptr(),
                j.val.as_ptr(),
                nefc as i32,
                nv as i32,
                tn.as_mut_ptr(),
                ta.as_mut_ptr(),
                tc.as_mut_ptr(),
                tsup.as_mut_ptr(),
                j.nnz.as_ptr(),
                j.adr.as_ptr(),
                j.col.as_ptr(),
            );
            mju_superSparse(nefc as i32, jsup.as_mut_ptr(), j.nnz.as_ptr(), j.adr.as_ptr(), j.col.as_ptr());
        }
        // the library: count, room for M, fill, values, + M
        let (mut hn, mut ha) = (vec![0; nv], vec![0; nv]);
        let null = std::ptr::null_mut();
        // SAFETY: as above; no colind (count).
        let count = unsafe {
            mju_sqrMatTDSparseSymbolic(
                hn.as_mut_ptr(),
                ha.as_mut_ptr(),
                null,
                null,
                nefc as i32,
                nv as i32,
                j.nnz.as_ptr(),
                j.adr.as_ptr(),
                j.col.as_ptr(),
                jsup.as_ptr(),
                tn.as_ptr(),
                ta.as_ptr(),
                tc.as_ptr(),
                tsup.as_ptr(),
                d,
            )
        } as usize;
        let nh = count + m.col.len();
        let mut shift = 0;
        for r in 0..nv - 1 {
            shift += m.nnz[r];
            ha[r + 1] += shift;
        }
        let (mut hv, mut hc) = (vec![0.0; nh], vec![0; nh]);
        // SAFETY: as above, H of nH entries.
        unsafe {
            mju_sqrMatTDSparseSymbolic(
                hn.as_mut_ptr(),
                ha.as_mut_ptr(),
                hc.as_mut_ptr(),
                null,
                nefc as i32,
                nv as i32,
                j.nnz.as_ptr(),
                j.adr.as_ptr(),
                j.col.as_ptr(),
                jsup.as_ptr(),
                tn.as_ptr(),
                ta.as_ptr(),
                tc.as_ptr(),
                tsup.as_ptr(),
                d,
            );
            mju_sqrMatTDSparseNumeric(
                hv.as_mut_ptr(),
                nv as i32,
                hn.as_ptr(),
                ha.as_ptr(),
                hc.as_ptr(),
                null,
                j.val.as_ptr(),
                j.nnz.as_ptr(),
                j.adr.as_ptr(),
                j.col.as_ptr(),
                t.as_ptr(),
                tn.as_ptr(),
                ta.as_ptr(),
                tc.as_ptr(),
                tsup.as_ptr(),
                dd.as_ptr(),
                d,
            );
            mju_addToMatSparse(
                hv.as_mut_ptr(),
                hn.as_mut_ptr(),
                ha.as_mut_ptr(),
                hc.as_mut_ptr(),
                nv as i32,
                m.val.as_ptr(),
                m.nnz.as_ptr(),
                m.adr.as_ptr(),
                m.col.as_ptr(),
            );
        }
        let b = Blocks {
            j: &j.val,
            j_rownnz: &j.nnz,
            j_rowadr: &j.adr,
            j_colind: &j.col,
            jt: &t,
            jt_rownnz: &tn,
            jt_rowadr: &ta,
            jt_colind: &tc,
            m: &m.val,
            m_rownnz: &m.nnz,
            m_rowadr: &m.adr,
            m_colind: &m.col,
            efc_d,
        };
        // (no contact rows: no cone step)
        h.build(&b, st, &ConeRows { efc_id: &[], contacts: &[], h: &[] });
        assert_eq!(h.njtj, count, "case {case}: J'J entries");
        let (v, n, a, c) = h.hessian();
        for r in 0..nv {
            let (mine, theirs) = (a[r] as usize..(a[r] + n[r]) as usize, ha[r] as usize..(ha[r] + hn[r]) as usize);
            assert_eq!(c[mine.clone()], hc[theirs.clone()], "case {case} row {r}: pattern");
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&v[mine]), bits(&hv[theirs]), "case {case} row {r}: values");
        }
        // the library's factor of its H and a solve, against the Rust factor's
        let grad: Vec<f64> = (0..nv).map(|_| s.next()).collect();
        let (mine, theirs) = (&mut vec![0.0; nv], &mut vec![0.0; nv]);
        h.solve(mine, &grad, false);
        library_solve(d, nv, (&hv, &hn, &ha, &hc), &grad, theirs);
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(mine), bits(theirs), "case {case}: H^-1 grad");
    }

    #[test]
    fn the_sparse_hessian_is_the_librarys_mujoco() {
        let model = Model::from_xml_str("<mujoco/>").expect("model");
        let mut data = Data::new(&model).expect("data");
        let mut s = Stream(0x4e55_1a45_0000_0003);
        let mut h = SparseHessian::default();
        let _ = data.with_mj(|_, d| {
            for case in 0..200 {
                let nv = 6 * (1 + s.below(20)) + s.below(3);
                let nefc = 1 + s.below(4 * nv);
                let j = jacobian(&mut s, nv, nefc);
                let m = inertia(&mut s, nv);
                let efc_d: Vec<f64> = (0..nefc).map(|_| s.next() + 1.5).collect();
                let st: Vec<i32> = (0..nefc).map(|_| i32::from(s.below(3) != 0)).collect();
                compare_case(d, &mut h, &mut s, (&j, &m), &efc_d, &st, case);
            }
        });
    }
}
