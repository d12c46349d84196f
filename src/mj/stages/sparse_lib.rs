//! Test-only: the library's exported kernels (sparse, QCQP) that its public header does not declare
//! (4.0.0 exports them; the forms are the ones `docs/measurements.md` D40, D41 and D53 give), and
//! a deterministic random stream, for the solver tests (`solver`, `solver_noslip`, `solver_sparse`,
//! `solver_newton_sparse`).

#![cfg(test)]

use mujoco_sys as sys;

extern "C" {
    pub(super) fn mju_QCQP2(res: *mut f64, a: *const f64, b: *const f64, d: *const f64, r: f64) -> i32;
    pub(super) fn mju_QCQP3(res: *mut f64, a: *const f64, b: *const f64, d: *const f64, r: f64) -> i32;
    pub(super) fn mju_mulSymVecSparse(
        res: *mut f64,
        mat: *const f64,
        vec: *const f64,
        n: i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
    );
    pub(super) fn mju_addToMatSparse(
        dst: *mut f64,
        rownnz: *mut i32,
        rowadr: *mut i32,
        colind: *mut i32,
        nr: i32,
        m: *const f64,
        m_rownnz: *const i32,
        m_rowadr: *const i32,
        m_colind: *const i32,
    );
    pub(super) fn mju_cholFactorNumeric(
        l: *mut f64,
        n: i32,
        mindiag: f64,
        l_rownnz: *const i32,
        l_rowadr: *const i32,
        l_colind: *const i32,
        lt_rownnz: *const i32,
        lt_rowadr: *const i32,
        lt_colind: *const i32,
        lt_map: *const i32,
        h: *const f64,
        h_rownnz: *const i32,
        h_rowadr: *const i32,
        h_colind: *const i32,
        dense: *mut f64,
    ) -> i32;
    pub(super) fn mju_cholFactorSymbolic(
        l_colind: *mut i32,
        l_rownnz: *mut i32,
        l_rowadr: *mut i32,
        lt_colind: *mut i32,
        lt_rownnz: *mut i32,
        lt_rowadr: *mut i32,
        lt_map: *mut i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
        n: i32,
        d: *mut sys::mjData,
    ) -> i32;
    pub(super) fn mju_cholSolveSparse(
        res: *mut f64,
        mat: *const f64,
        vec: *const f64,
        n: i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
    );
    pub(super) fn mju_cholUpdateSparse(
        mat: *mut f64,
        x: *const f64,
        n: i32,
        plus: i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
        x_nnz: i32,
        x_ind: *const i32,
        dense: *mut f64,
    ) -> i32;
    pub(super) fn mju_minDegree(
        perm: *mut i32,
        adj: *mut u64,
        n: i32,
        weight: *const i32,
        nnz: *mut i64,
        flops: *mut i64,
        limit: i64,
        iscratch: *mut i32,
        uscratch: *mut u64,
    ) -> i32;
    pub(super) fn mju_permuteLowerCSR(
        n: i32,
        perm: *const i32,
        res_rownnz: *mut i32,
        res_rowadr: *mut i32,
        res_colind: *mut i32,
        res: *mut f64,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
        mat: *const f64,
    );
    pub(super) fn mju_sqrMatTDSparseNumeric(
        res: *mut f64,
        nc: i32,
        res_rownnz: *const i32,
        res_rowadr: *const i32,
        res_colind: *const i32,
        res_diagind: *const i32,
        mat: *const f64,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
        mat_t: *const f64,
        rownnz_t: *const i32,
        rowadr_t: *const i32,
        colind_t: *const i32,
        rowsuper_t: *const i32,
        diag: *const f64,
        d: *mut sys::mjData,
    );
    pub(super) fn mju_sqrMatTDSparseSymbolic(
        res_rownnz: *mut i32,
        res_rowadr: *mut i32,
        res_colind: *mut i32,
        res_diagind: *mut i32,
        nr: i32,
        nc: i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
        rowsuper: *const i32,
        rownnz_t: *const i32,
        rowadr_t: *const i32,
        colind_t: *const i32,
        rowsuper_t: *const i32,
        d: *mut sys::mjData,
    ) -> i32;
    pub(super) fn mju_superSparse(
        nr: i32,
        rowsuper: *mut i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
    );
    pub(super) fn mju_transposeSparse(
        res: *mut f64,
        mat: *const f64,
        nr: i32,
        nc: i32,
        res_rownnz: *mut i32,
        res_rowadr: *mut i32,
        res_colind: *mut i32,
        res_rowsuper: *mut i32,
        rownnz: *const i32,
        rowadr: *const i32,
        colind: *const i32,
    );
}

/// A deterministic stream (xorshift): doubles in [-1, 1) and integers below a bound.
pub(super) struct Stream(pub(super) u64);

impl Stream {
    pub(super) fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn next(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }
}
