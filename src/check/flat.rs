//! Flattening model fields of any shape (scalars, fixed arrays, vectors of either, enums) into
//! f64 values for comparison.

use specula_model::types::{Cone, GeomType, Integrator, Jacobian, JointType, SameFrame, Solver};

/// A single numeric value.
pub trait Num: Copy {
    /// The value as f64 (enums by their MuJoCo number).
    fn num(self) -> f64;
}

macro_rules! num_as {
    ($($t:ty),*) => { $(impl Num for $t { fn num(self) -> f64 { self as f64 } })* };
}
num_as!(f64, f32, i32, u32, i64, u8, usize);
macro_rules! num_enum {
    ($($t:ty),*) => { $(impl Num for $t { fn num(self) -> f64 { self as i32 as f64 } })* };
}
num_enum!(GeomType, JointType, Integrator, Cone, Jacobian, Solver, SameFrame);

impl Num for bool {
    fn num(self) -> f64 {
        f64::from(u8::from(self))
    }
}

/// Something that flattens into a row of values.
pub trait Row {
    /// Values per row.
    const COLS: usize;
    /// Appends the row's values to `out`.
    fn push_to(&self, out: &mut Vec<f64>);
}

impl<T: Num> Row for T {
    const COLS: usize = 1;
    fn push_to(&self, out: &mut Vec<f64>) {
        out.push(self.num());
    }
}

impl<T: Num, const N: usize> Row for [T; N] {
    const COLS: usize = N;
    fn push_to(&self, out: &mut Vec<f64>) {
        out.extend(self.iter().map(|v| v.num()));
    }
}

/// Flattens `rows` into (values, columns).
pub fn flat<R: Row>(rows: &[R]) -> (Vec<f64>, usize) {
    let mut out = Vec::with_capacity(rows.len() * R::COLS);
    for r in rows {
        r.push_to(&mut out);
    }
    (out, R::COLS)
}

/// Flattens one row into (values, columns).
pub fn flat_one<R: Row>(row: &R) -> (Vec<f64>, usize) {
    flat(std::slice::from_ref(row))
}
