//! The projection and reference kernels: summation orders, the arena replay, and the sparse
//! projection against the dense one on a small tree.

use specula_engine::dynamics::project::{self, Arena, Factor};
use specula_engine::dynamics::project_sparse::{self as sparse, Pattern};
use specula_engine::dynamics::reference::{dot, sparse_dot};

#[test]
fn dot_keeps_four_lanes_then_the_tail() {
    let a = [1e16, 1.0, -1e16, 1.0, 1.0, 1.0];
    let b = [1.0; 6];
    // lanes 1e16, 1, -1e16, 1 reduce to (1e16 - 1e16) + (1 + 1) = 2; a left-to-right sum loses the 1s
    assert_eq!(dot(&a[..4], &b[..4]), 2.0);
    assert_eq!(dot(&a, &b), 2.0 + (1.0 + 1.0));
    assert_ne!(a.iter().sum::<f64>(), dot(&a, &b));
    // under four entries the sum is added to +0
    assert_eq!(dot(&[-0.0], &[1.0]).to_bits(), 0.0f64.to_bits());
    assert_eq!(sparse_dot(&[2.0, 3.0], &[1, 0], &[10.0, 100.0]), 3.0 * 10.0 + (2.0 * 100.0 + 0.0));
}

#[test]
fn arena_pads_to_addresses_and_fails_without_change() {
    let mut a = Arena::new(0x1004, 64, 0, 8, 8, 8);
    assert_eq!(a.alloc(8, 4), Some(0));
    // address 0x100c pads to 0x1010
    assert_eq!(a.alloc(8, 8), Some(12));
    assert_eq!(a.parena, 20);
    assert_eq!(a.alloc(100, 8), None);
    assert_eq!(a.parena, 20);
    assert_eq!(a.maxuse_arena, 28);
    a.mark().unwrap();
    a.stack_alloc(8, 8).unwrap();
    assert!(a.maxuse_stack > 8);
    a.free();
    assert_eq!(a.pstack, 8);
}

/// A chain of three hinges (dof i's parent i-1): M's lower-triangle rows list the ancestors.
fn chain() -> (Vec<i32>, Vec<i32>, Vec<i32>, Vec<f64>) {
    let rownnz = vec![1, 2, 3];
    let rowadr = vec![0, 1, 3];
    let colind = vec![0, 0, 1, 0, 1, 2];
    // an L'DL factor: off-diagonals L, diagonals D
    let qld = vec![2.0, 0.3, 3.0, -0.2, 0.5, 4.0];
    (rownnz, rowadr, colind, qld)
}

#[test]
fn sparse_projection_matches_dense() {
    let (m_rownnz, m_rowadr, m_colind, qld) = chain();
    let simple = [0, 0, 0];
    let f = Factor { m_rownnz: &m_rownnz, m_rowadr: &m_rowadr, m_colind: &m_colind, qld: &qld, dof_simplenum: &simple };
    let (nv, nefc) = (3, 3);
    let jd = [0.0, 1.0, 0.0, 0.5, 0.0, 2.0, 0.0, 0.0, -1.0];
    let j_rownnz = [1, 2, 1];
    let j_rowadr = [0, 1, 3];
    let j_colind = [1, 0, 2, 2];
    let jv = [1.0, 0.5, 2.0, -1.0];
    let jp = Pattern { rownnz: &j_rownnz, rowadr: &j_rowadr, colind: &j_colind };
    let r = [0.1, 0.2, 0.3];
    let mut sid = [0.0; 3];
    project::sqrt_inv_d(&f, &mut sid);

    let mut yd = [0.0; 9];
    project::y_dense(&f, &jd, &sid, &mut yd);
    let (mut yt, mut ard) = ([0.0; 9], [0.0; 9]);
    project::ar_dense(&yd, nv, &r, &mut yt, &mut ard);

    let (mut marker, mut y_rownnz, mut y_rowadr) = ([0; 3], [0; 3], [0; 3]);
    let ny = sparse::y_precount(&jp, &f, &mut marker, &mut y_rownnz, &mut y_rowadr) as usize;
    assert_eq!(y_rownnz, [2, 3, 3]);
    let (mut y_colind, mut ys) = (vec![0; ny], vec![0.0; ny]);
    sparse::y_numeric(&jp, &jv, &f, &sid, &y_rownnz, &y_rowadr, &mut y_colind, &mut ys, None);
    for rr in 0..nefc {
        for k in y_rowadr[rr] as usize..(y_rowadr[rr] + y_rownnz[rr]) as usize {
            assert_eq!(ys[k], yd[rr * nv + y_colind[k] as usize]);
        }
    }
    let yp = Pattern { rownnz: &y_rownnz, rowadr: &y_rowadr, colind: &y_colind };
    let (mut t_rownnz, mut t_rowadr, mut t_colind, mut tv) = ([0; 3], [0; 3], vec![0; ny], vec![0.0; ny]);
    sparse::transpose(&yp, Some(&ys), &mut t_rownnz, &mut t_rowadr, &mut t_colind, Some(&mut tv));
    let tp = Pattern { rownnz: &t_rownnz, rowadr: &t_rowadr, colind: &t_colind };
    let (mut mark, mut a_rownnz, mut a_rowadr, mut cols) = ([0; 3], [0; 3], [0; 3], Vec::new());
    let na = sparse::ar_symbolic(&yp, &tp, &mut mark, &mut a_rownnz, &mut a_rowadr, &mut cols) as usize;
    assert_eq!(na, 9);
    let ap = Pattern { rownnz: &a_rownnz, rowadr: &a_rowadr, colind: &cols };
    let mut diagind = [0; 3];
    sparse::ar_diagonal_index(&ap, &mut diagind);
    let (mut buffer, mut upper, mut ars) = ([0.0; 3], [0; 3], vec![0.0; na]);
    sparse::ar_numeric(&yp, &ys, &tp, &tv, &ap, &diagind, &r, &mut buffer, &mut upper, &mut ars);
    for rr in 0..nefc {
        for k in a_rowadr[rr] as usize..(a_rowadr[rr] + a_rownnz[rr]) as usize {
            assert_eq!(ars[k], ard[rr * nefc + cols[k] as usize], "AR[{rr},{}]", cols[k]);
        }
    }
}
