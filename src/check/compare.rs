//! Comparing two sets of named numeric fields, value by value, with MuJoCo-compatibility tolerances.

/// How the rows of a field are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Value by value.
    Plain,
    /// Rows of 4 are unit quaternions: equal up to sign.
    Quat,
    /// Rows are compared as an unordered set (e.g. convex-hull vertices).
    Set,
}

/// One named field: a flat array of `rows × cols` values.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name (MuJoCo's, e.g. `geom_size`).
    pub name: String,
    /// The values, row-major.
    pub values: Vec<f64>,
    /// Values per row.
    pub cols: usize,
    /// How to compare it.
    pub kind: FieldKind,
    /// Relative tolerance: [`TOL`], or [`TOL_F32`] for values MuJoCo stores in single precision.
    pub tol: f64,
}

impl Field {
    /// A plain field.
    pub fn new(name: impl Into<String>, values: Vec<f64>, cols: usize) -> Field {
        Field { name: name.into(), values, cols: cols.max(1), kind: FieldKind::Plain, tol: TOL }
    }

    /// The same field compared at single precision (values MuJoCo stores as `float`).
    pub fn single_precision(mut self) -> Field {
        self.tol = TOL_F32;
        self
    }

    /// The same field compared as `kind`.
    pub fn with_kind(mut self, kind: FieldKind) -> Field {
        self.kind = kind;
        self
    }
}

/// One value that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Field name.
    pub field: String,
    /// Index of the value in the flat array (for a length mismatch: the shorter length).
    pub index: usize,
    /// MuJoCo C's value (NaN where C has none).
    pub c: f64,
    /// specula's value (NaN where Rust has none).
    pub rust: f64,
}

/// The outcome of a comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Fields compared.
    pub fields: usize,
    /// Values compared.
    pub values: usize,
    /// Every value that differs.
    pub mismatches: Vec<Mismatch>,
    /// What was left out of the comparison and why (e.g. actuators specula cannot compile yet).
    pub notes: Vec<String>,
}

/// Relative tolerance of `specula check`: |c − rust| ≤ TOL·max(1, |c|).
pub const TOL: f64 = 1e-9;
/// Tolerance for values MuJoCo stores in single precision (`mesh_vert`): one float32 step
/// (2^-23 relative). Measured: MuJoCo and specula can round a vertex that falls exactly half-way
/// between two floats in opposite directions, because the centre of mass subtracted first differs
/// by round-off (1e-16) between two equally valid summation orders.
pub const TOL_F32: f64 = 1.0 / 8_388_608.0;

/// Whether `rust` matches `c` within [`TOL`] (NaN matches NaN; infinities must be equal).
pub fn close(c: f64, rust: f64) -> bool {
    close_within(c, rust, TOL, 1.0)
}

/// Whether `rust` matches `c` within `tol` relative to the larger of |c| and `floor`.
pub fn close_within(c: f64, rust: f64, tol: f64, floor: f64) -> bool {
    if c.is_nan() || rust.is_nan() {
        return c.is_nan() && rust.is_nan();
    }
    if c.is_infinite() || rust.is_infinite() {
        return c == rust;
    }
    (c - rust).abs() <= tol * c.abs().max(floor)
}

impl Comparison {
    /// Compares `rust` against `c` and adds the result.
    pub fn add(&mut self, c: &Field, rust: &Field) {
        self.fields += 1;
        let name = &c.name;
        let push =
            |m: &mut Vec<Mismatch>, index, cv, rv| m.push(Mismatch { field: name.clone(), index, c: cv, rust: rv });
        if c.values.len() != rust.values.len() {
            let n = c.values.len().min(rust.values.len());
            push(&mut self.mismatches, n, c.values.len() as f64, rust.values.len() as f64);
            return;
        }
        self.values += c.values.len();
        let cols = c.cols;
        let tol = c.tol.max(rust.tol);
        // Double precision: relative above 1, absolute below. Single precision: relative to the
        // array's magnitude, the scale at which float32 rounds (a coordinate near zero carries the
        // rounding of the others it was computed from).
        let floor = if tol > TOL { c.values.iter().fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs())) } else { 1.0 };
        let close = |a: f64, b: f64| close_within(a, b, tol, floor);
        match c.kind {
            FieldKind::Plain => {
                for (i, (&a, &b)) in c.values.iter().zip(&rust.values).enumerate() {
                    if !close(a, b) {
                        push(&mut self.mismatches, i, a, b);
                    }
                }
            }
            FieldKind::Quat => {
                for (r, (qa, qb)) in c.values.chunks(cols).zip(rust.values.chunks(cols)).enumerate() {
                    let same = qa.iter().zip(qb).all(|(&a, &b)| close(a, b));
                    let flipped = qa.iter().zip(qb).all(|(&a, &b)| close(a, -b));
                    if !same && !flipped {
                        let j = qa.iter().zip(qb).position(|(&a, &b)| !close(a, b)).unwrap_or(0);
                        push(&mut self.mismatches, r * cols + j, qa[j], qb[j]);
                    }
                }
            }
            FieldKind::Set => {
                let rows_b: Vec<&[f64]> = rust.values.chunks(cols).collect();
                let mut used = vec![false; rows_b.len()];
                for (r, ra) in c.values.chunks(cols).enumerate() {
                    let hit = rows_b
                        .iter()
                        .enumerate()
                        .position(|(k, rb)| !used[k] && ra.iter().zip(rb.iter()).all(|(&a, &b)| close(a, b)));
                    match hit {
                        Some(k) => used[k] = true,
                        None => push(&mut self.mismatches, r * cols, ra[0], f64::NAN),
                    }
                }
            }
        }
    }

    /// Compares every field of `c` that `rust` also holds (matched by name); fields only one
    /// side has are not compared.
    pub fn add_all(&mut self, c: &[Field], rust: &[Field]) {
        for cf in c {
            if let Some(rf) = rust.iter().find(|f| f.name == cf.name) {
                let cf = Field { kind: rf.kind, tol: rf.tol, ..cf.clone() };
                self.add(&cf, rf);
            }
        }
    }

    /// Whether everything compared matched.
    pub fn matched(&self) -> bool {
        self.mismatches.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_relative_above_one_and_absolute_below() {
        assert!(close(1e6, 1e6 + 1e-4));
        assert!(!close(1e6, 1e6 + 1e-2));
        assert!(close(1e-3, 1e-3 + 9e-10));
        assert!(!close(1e-3, 1e-3 + 2e-9));
        assert!(close(f64::NAN, f64::NAN));
        assert!(!close(0.0, f64::NAN));
    }

    #[test]
    fn quaternions_match_up_to_sign_only_as_a_whole() {
        let c = Field::new("body_quat", vec![1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5], 4).with_kind(FieldKind::Quat);
        let ok = Field { values: vec![-1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5], ..c.clone() };
        let bad = Field { values: vec![1.0, 0.0, 0.0, 0.0, 0.5, -0.5, 0.5, 0.5], ..c.clone() };
        let mut cmp = Comparison::default();
        cmp.add(&c, &ok);
        assert!(cmp.matched());
        cmp.add(&c, &bad);
        assert_eq!(cmp.mismatches.len(), 1);
        assert_eq!(cmp.mismatches[0].index, 5);
    }

    #[test]
    fn sets_ignore_order_but_not_content() {
        let c = Field::new("hull", vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0], 2).with_kind(FieldKind::Set);
        let shuffled = Field { values: vec![2.0, 2.0, 0.0, 0.0, 1.0, 1.0], ..c.clone() };
        let other = Field { values: vec![2.0, 2.0, 0.0, 0.0, 1.0, 1.5], ..c.clone() };
        let mut cmp = Comparison::default();
        cmp.add(&c, &shuffled);
        assert!(cmp.matched());
        cmp.add(&c, &other);
        assert!(!cmp.matched());
    }

    #[test]
    fn single_precision_fields_allow_one_float_step_and_no_more() {
        let c = Field::new("mesh_vert", vec![0.067_600_198_090_076_45], 1).single_precision();
        let one_step = Field { values: vec![0.067_600_190_639_495_85], ..c.clone() };
        let ten_steps = Field { values: vec![0.067_600_198_090_076_45 - 10.0 * 7.45e-9], ..c.clone() };
        let mut cmp = Comparison::default();
        cmp.add(&c, &one_step);
        assert!(cmp.matched());
        cmp.add(&c, &ten_steps);
        assert!(!cmp.matched());
    }

    #[test]
    fn a_length_difference_is_a_mismatch() {
        let c = Field::new("geom_size", vec![1.0; 6], 3);
        let r = Field::new("geom_size", vec![1.0; 3], 3);
        let mut cmp = Comparison::default();
        cmp.add(&c, &r);
        assert_eq!(cmp.mismatches, vec![Mismatch { field: "geom_size".into(), index: 3, c: 6.0, rust: 3.0 }]);
    }
}
