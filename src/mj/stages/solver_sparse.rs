//! The sparse Newton Hessian's kernels (`specula_engine::dynamics::solver::{order, chol_sparse}`)
//! alone against the library's exported `mju_minDegree`, `mju_cholFactorSymbolic`,
//! `mju_cholFactorNumeric`, `mju_cholSolveSparse` and `mju_cholUpdateSparse`, bit for bit
//! (`docs/measurements.md` D40, D41).

#[cfg(test)]
mod tests {
    use crate::mj::{Data, Model};
    use specula_engine::dynamics::solver::chol_sparse::{chain, factor_numeric, solve_sparse, update_sparse, Pattern};
    use specula_engine::dynamics::solver::order::{min_degree, permute_lower, row_words, LowerCsr, OrderScratch};

    use super::super::sparse_lib::*;

    /// The bits of `v`, every NaN as one pattern: which NaN an operation returns depends on the
    /// operand order the compiler picks (the test profile and release differ), and the state is
    /// invalid anyway, as the stage comparisons count NaN against NaN as equal.
    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| if x.is_nan() { f64::NAN.to_bits() } else { x.to_bits() }).collect()
    }

    /// A random symmetric bit adjacency of `n` nodes with about `density` of the pairs set.
    fn adjacency(s: &mut Stream, n: usize, density: f64) -> Vec<u64> {
        let nw = row_words(n);
        let mut adj = vec![0u64; n * nw];
        for i in 0..n {
            for j in 0..i {
                if (s.next() + 1.0) * 0.5 < density {
                    adj[i * nw + j / 64] |= 1 << (j % 64);
                    adj[j * nw + i / 64] |= 1 << (i % 64);
                }
            }
            // some self bits, which the order clears
            if i % 3 == 0 {
                adj[i * nw + i / 64] |= 1 << (i % 64);
            }
        }
        adj
    }

    #[test]
    fn the_minimum_degree_order_is_the_librarys_mujoco() {
        let mut s = Stream(0x51de_c0de_0bad_f00d);
        let mut scratch = OrderScratch::default();
        let (mut given_up, mut weighted) = (0, 0);
        for case in 0..400 {
            let n = 1 + s.below(if case % 10 == 0 { 150 } else { 70 });
            let density = [0.02, 0.08, 0.2, 0.5][case % 4];
            let adj = adjacency(&mut s, n, density);
            let weight: Vec<i32> = (0..n).map(|_| [1, 1, 2, 3, 6][s.below(5)]).collect();
            let with_weight = case % 3 != 0;
            let limit = if case % 5 == 0 { 0 } else { s.below(4000) as i64 };
            let w = with_weight.then_some(&weight[..]);
            let (mut perm_o, mut adj_o) = (vec![-7; n], adj.clone());
            let ours = min_degree(&mut perm_o, &mut adj_o, w, limit, &mut scratch);
            let (mut perm_t, mut adj_t) = (vec![-7; n], adj);
            let (mut nnz, mut flops) = (-1i64, -1i64);
            let (mut iscr, mut uscr) = (vec![0i32; 6 * n], vec![0u64; row_words(n)]);
            // SAFETY: an n-vector, n rows of row_words(n) words, n weights, 6n ints and one row.
            let complete = unsafe {
                mju_minDegree(
                    perm_t.as_mut_ptr(),
                    adj_t.as_mut_ptr(),
                    n as i32,
                    w.map_or(std::ptr::null(), |w| w.as_ptr()),
                    &mut nnz,
                    &mut flops,
                    limit,
                    iscr.as_mut_ptr(),
                    uscr.as_mut_ptr(),
                )
            };
            let w_ours = if with_weight { (ours.nnz, ours.flops) } else { (0, 0) };
            let w_theirs = if with_weight { (nnz, flops) } else { (0, 0) };
            assert_eq!(
                (i32::from(ours.complete), w_ours, &adj_o, &perm_o),
                (complete, w_theirs, &adj_t, &perm_t),
                "order case {case} (n {n})"
            );
            given_up += usize::from(!ours.complete);
            weighted += usize::from(with_weight && ours.flops > 0);
        }
        assert!(given_up > 20 && weighted > 100, "{given_up} given up, {weighted} weighted");
    }

    /// A random sparse symmetric positive definite matrix `n x n` (a tree's inertia-like pattern
    /// plus random couplings), as its lower triangle by rows (diagonal last) and its upper
    /// triangle's pattern by rows.
    struct Sym {
        val: Vec<f64>,
        rownnz: Vec<i32>,
        rowadr: Vec<i32>,
        colind: Vec<i32>,
        u_rownnz: Vec<i32>,
        u_rowadr: Vec<i32>,
        u_colind: Vec<i32>,
    }

    fn sym(s: &mut Stream, n: usize, density: f64, shift: f64) -> Sym {
        let mut dense = vec![0.0; n * n];
        let mut on = vec![false; n * n];
        for i in 0..n {
            for j in 0..i {
                if (s.next() + 1.0) * 0.5 < density {
                    on[i * n + j] = true;
                }
            }
        }
        // B B' over a few sparse columns keeps it positive semidefinite; the diagonal shift makes
        // it definite (or barely so)
        for i in 0..n {
            for j in 0..=i {
                if i == j || on[i * n + j] {
                    let v = s.next();
                    dense[i * n + j] = if i == j { n as f64 * 0.5 + shift + v.abs() } else { v * 0.4 };
                }
            }
        }
        let mut m = Sym {
            val: vec![],
            rownnz: vec![],
            rowadr: vec![],
            colind: vec![],
            u_rownnz: vec![],
            u_rowadr: vec![],
            u_colind: vec![],
        };
        for i in 0..n {
            m.rowadr.push(m.val.len() as i32);
            for j in 0..=i {
                if i == j || on[i * n + j] {
                    m.colind.push(j as i32);
                    m.val.push(dense[i * n + j]);
                }
            }
            m.rownnz.push(m.val.len() as i32 - m.rowadr[i]);
        }
        for i in 0..n {
            m.u_rowadr.push(m.u_colind.len() as i32);
            for j in i..n {
                if i == j || on[j * n + i] {
                    m.u_colind.push(j as i32);
                }
            }
            m.u_rownnz.push(m.u_colind.len() as i32 - m.u_rowadr[i]);
        }
        m
    }

    /// Whether every chain of the factor has, in each row below with an entry in its first row's
    /// column, the entries of the chain's other columns just before it (what the library's chain
    /// path assumes, D41).
    fn chains_hold(p: &Pattern) -> bool {
        (0..p.rownnz.len()).all(|r| {
            let m = chain(p, r);
            let (ta, tn) = (p.t_rowadr[r] as usize, p.t_rownnz[r] as usize);
            (ta + 1..ta + tn).all(|k| {
                let (c, at) = (p.t_colind[k] as usize, p.t_map[k] as usize);
                (1..m).all(|t| at - t >= p.rowadr[c] as usize && p.colind[at - t] == (r - t) as i32)
            })
        })
    }

    #[test]
    fn the_row_supernodes_are_the_librarys_mujoco() {
        use specula_engine::dynamics::constraint::super_sparse;
        let mut s = Stream(0x5e9a_7d05_a11c_e555);
        let mut batched = 0;
        for case in 0..300 {
            let (nr, nc) = (1 + s.below(40), 1 + s.below(70));
            // rows repeat their predecessor's pattern often, as a contact's rows do
            let (mut rownnz, mut rowadr, mut colind) = (vec![], vec![], vec![]);
            for r in 0..nr {
                rowadr.push(colind.len() as i32);
                if r > 0 && s.below(3) == 0 {
                    let (a, k) = (rowadr[r - 1] as usize, rownnz[r - 1] as usize);
                    colind.extend_from_within(a..a + k);
                } else {
                    let density = [0.05, 0.2, 0.6][case % 3];
                    colind.extend((0..nc as i32).filter(|_| (s.next() + 1.0) * 0.5 < density));
                }
                rownnz.push(colind.len() as i32 - rowadr[r]);
            }
            let mut ours = vec![-1; nr];
            super_sparse(&mut ours, &rownnz, &rowadr, &colind);
            let mut theirs = vec![-1; nr];
            // SAFETY: nr rows of a sparse pattern.
            unsafe {
                mju_superSparse(nr as i32, theirs.as_mut_ptr(), rownnz.as_ptr(), rowadr.as_ptr(), colind.as_ptr())
            };
            assert_eq!(ours, theirs, "super case {case}");
            batched += usize::from(ours.iter().any(|&k| k > 1));
        }
        assert!(batched > 50, "{batched} with supernodes of three rows or more");
    }

    #[test]
    fn the_permuted_lower_triangle_is_the_librarys_mujoco() {
        let mut s = Stream(0x9e4a_17e5_0c5a_0001);
        let mut out = LowerCsr::default();
        for case in 0..200 {
            let n = 1 + s.below(90);
            // dense rows past 25 entries take the library's gap sort
            let h = sym(&mut s, n, [0.05, 0.3, 0.9][case % 3], 0.0);
            let mut perm: Vec<i32> = (0..n as i32).collect();
            for i in (1..n).rev() {
                perm.swap(i, s.below(i + 1));
            }
            permute_lower(&perm, &h.rownnz, &h.rowadr, &h.colind, &h.val, &mut out);
            let nnz = h.val.len();
            let (mut rn, mut ra, mut rc, mut rv) = (vec![-1; n], vec![-1; n], vec![-1; nnz], vec![f64::NAN; nnz]);
            // SAFETY: n rows, nnz entries in and out.
            unsafe {
                mju_permuteLowerCSR(
                    n as i32,
                    perm.as_ptr(),
                    rn.as_mut_ptr(),
                    ra.as_mut_ptr(),
                    rc.as_mut_ptr(),
                    rv.as_mut_ptr(),
                    h.rownnz.as_ptr(),
                    h.rowadr.as_ptr(),
                    h.colind.as_ptr(),
                    h.val.as_ptr(),
                )
            };
            assert_eq!(
                (&out.rownnz, &out.rowadr, &out.colind, bits(&out.val)),
                (&rn, &ra, &rc, bits(&rv)),
                "permute case {case}"
            );
        }
    }

    #[test]
    fn the_sparse_cholesky_kernels_are_the_librarys_mujoco() {
        let model = Model::from_xml_str("<mujoco/>").expect("model");
        let mut data = Data::new(&model).expect("data");
        let mut s = Stream(0xc401_e5c1_5a45_e001);
        let (mut lost, mut down, mut chained, mut unchained) = (0, 0, 0, 0);
        data.with_mj(|_, d| {
            for case in 0..1000 {
                let n = 1 + s.below(60);
                let shift = if case % 7 == 3 { -(n as f64) } else { 0.0 };
                let h = sym(&mut s, n, [0.03, 0.1, 0.3][case % 3], shift);
                // the pattern, counted then filled
                let mut p = Pattern::default();
                let nl = p.analyse(n, &h.u_rownnz, &h.u_rowadr, &h.u_colind);
                let (mut t_nnz, mut t_adr, mut t_tnnz, mut t_tadr) = (vec![0; n], vec![0; n], vec![0; n], vec![0; n]);
                let null = std::ptr::null_mut();
                // SAFETY: n-vectors for the counts and the upper pattern of h; no colind (count).
                let count = unsafe {
                    mju_cholFactorSymbolic(
                        null,
                        t_nnz.as_mut_ptr(),
                        t_adr.as_mut_ptr(),
                        null,
                        t_tnnz.as_mut_ptr(),
                        t_tadr.as_mut_ptr(),
                        null,
                        h.u_rownnz.as_ptr(),
                        h.u_rowadr.as_ptr(),
                        h.u_colind.as_ptr(),
                        n as i32,
                        d,
                    )
                };
                let (mut t_col, mut t_tcol, mut t_map) = (vec![0; nl], vec![0; nl], vec![0; nl]);
                // SAFETY: the counted arrays, nl entries each.
                unsafe {
                    mju_cholFactorSymbolic(
                        t_col.as_mut_ptr(),
                        t_nnz.as_mut_ptr(),
                        t_adr.as_mut_ptr(),
                        t_tcol.as_mut_ptr(),
                        t_tnnz.as_mut_ptr(),
                        t_tadr.as_mut_ptr(),
                        t_map.as_mut_ptr(),
                        h.u_rownnz.as_ptr(),
                        h.u_rowadr.as_ptr(),
                        h.u_colind.as_ptr(),
                        n as i32,
                        d,
                    )
                };
                assert_eq!(
                    (count as usize, &p.rownnz, &p.rowadr, &p.colind, &p.t_rownnz, &p.t_rowadr, &p.t_colind, &p.t_map),
                    (nl, &t_nnz, &t_adr, &t_col, &t_tnnz, &t_tadr, &t_tcol, &t_map),
                    "symbolic case {case}"
                );
                // the values
                let mut ours = vec![f64::NAN; nl];
                let mut dense = vec![0.0; n];
                let rank = factor_numeric(&mut ours, &p, 1e-15, &h.val, &h.rownnz, &h.rowadr, &h.colind, &mut dense);
                let mut theirs = vec![f64::NAN; nl];
                // SAFETY: the pattern of nl entries, h's lower triangle, n rows.
                let c = unsafe {
                    mju_cholFactorNumeric(
                        theirs.as_mut_ptr(),
                        n as i32,
                        1e-15,
                        p.rownnz.as_ptr(),
                        p.rowadr.as_ptr(),
                        p.colind.as_ptr(),
                        p.t_rownnz.as_ptr(),
                        p.t_rowadr.as_ptr(),
                        p.t_colind.as_ptr(),
                        p.t_map.as_ptr(),
                        h.val.as_ptr(),
                        h.rownnz.as_ptr(),
                        h.rowadr.as_ptr(),
                        h.colind.as_ptr(),
                        vec![0.0; n].as_mut_ptr(),
                    )
                };
                // factors whose chains lack their columns below, where the library reads the
                // entries next to a row's (D41), are compared too
                unchained += usize::from(!chains_hold(&p));
                assert_eq!((rank as i32, bits(&ours)), (c, bits(&theirs)), "numeric case {case}");
                chained += usize::from((0..n).any(|r| chain(&p, r) == 3));
                lost += usize::from(rank < n);
                // the solve, with zero entries
                let vec: Vec<f64> = (0..n).map(|k| if k % 4 == 1 { 0.0 } else { s.next() * 4.0 }).collect();
                let mut so = vec![f64::NAN; n];
                solve_sparse(&mut so, &ours, &vec, &p.rownnz, &p.rowadr, &p.colind);
                let mut st = vec![f64::NAN; n];
                // SAFETY: n-vectors and the factor's pattern.
                unsafe {
                    mju_cholSolveSparse(
                        st.as_mut_ptr(),
                        theirs.as_ptr(),
                        vec.as_ptr(),
                        n as i32,
                        p.rownnz.as_ptr(),
                        p.rowadr.as_ptr(),
                        p.colind.as_ptr(),
                    )
                };
                assert_eq!(bits(&so), bits(&st), "solve case {case}");
                // an update along an existing row's pattern (the factor's pattern holds it)
                let row = s.below(n);
                let adr = h.rowadr[row] as usize;
                let x_ind: Vec<i32> = h.colind[adr..adr + h.rownnz[row] as usize].to_vec();
                let big = if case % 5 == 2 { 30.0 } else { 0.5 };
                let x: Vec<f64> = x_ind.iter().map(|_| s.next() * big).collect();
                let plus = case % 2 == 0;
                let mut lo = ours.clone();
                let r = update_sparse(&mut lo, &x, &x_ind, plus, n, &p.rownnz, &p.rowadr, &p.colind, &mut dense);
                let mut lt = theirs.clone();
                // SAFETY: the factor and its pattern, x of x_ind.len() entries.
                let c = unsafe {
                    mju_cholUpdateSparse(
                        lt.as_mut_ptr(),
                        x.as_ptr(),
                        n as i32,
                        i32::from(plus),
                        p.rownnz.as_ptr(),
                        p.rowadr.as_ptr(),
                        p.colind.as_ptr(),
                        x_ind.len() as i32,
                        x_ind.as_ptr(),
                        vec![f64::NAN; n].as_mut_ptr(),
                    )
                };
                assert_eq!((r as i32, bits(&lo)), (c, bits(&lt)), "update case {case}");
                down += usize::from(!plus && r < n);
            }
        })
        .expect("data");
        eprintln!(
            "{lost} lost rank, {down} downdates lost rank, {chained} with chains of 3, {unchained} with broken chains"
        );
        assert!(
            lost > 10 && down > 5 && chained > 20 && unchained > 20,
            "{lost} lost rank, {down} downdates lost rank, {chained} with chains of 3, {unchained} with broken chains"
        );
    }
}
