//! Orientation specifications (`quat`, `axisangle`, `xyaxes`, `zaxis`, `euler`) and their
//! conversion to quaternions, following MuJoCo's conventions exactly.

use super::attrs::{arr, err_at, Res};
use super::math::{cross, dot3, frame2quat, mulquat, normvec, z2quat, EPS, PI, QUNIT};
use crate::xml::Element;

/// The alternative orientation forms besides `quat`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Alt {
    /// Only `quat` (or nothing) was given.
    Quat,
    /// Axis (3) and angle (in compiler angle units).
    AxisAngle([f64; 4]),
    /// x axis then y axis of the frame.
    XyAxes([f64; 6]),
    /// z axis; the rotation is the minimal one from +z.
    ZAxis([f64; 3]),
    /// Three Euler angles, in the compiler's `eulerseq`.
    Euler([f64; 3]),
}

/// Compiler settings that affect how orientations are read.
#[derive(Clone, Copy, Debug)]
pub struct AngleConv {
    /// Angles are in degrees (`compiler angle="degree"`, MuJoCo's default).
    pub degree: bool,
    /// Euler sequence: lower case = rotating axes, upper case = fixed axes.
    pub eulerseq: [u8; 3],
}

/// Reads `quat` into `quat` and an alternative into `alt`; errors on a zero quaternion and
/// on more than one orientation specifier.
pub fn read_orient(el: &Element, quat: &mut [f64; 4], alt: &mut Alt) -> Res<()> {
    let mut count = 0;
    if arr(el, "quat", quat, true)? {
        count += 1;
        // an explicit quat replaces an alternative inherited from the default class
        // (measured: a geom with quat="..." in a class with zaxis="..." uses the quat)
        *alt = Alt::Quat;
        if quat.iter().all(|&x| x == 0.0) {
            return Err(err_at(el, "zero quaternion is not allowed"));
        }
    }
    let mut aa = [0.0; 4];
    if arr(el, "axisangle", &mut aa, true)? {
        count += 1;
        *alt = Alt::AxisAngle(aa);
    }
    let mut xy = [0.0; 6];
    if arr(el, "xyaxes", &mut xy, true)? {
        count += 1;
        *alt = Alt::XyAxes(xy);
    }
    let mut z = [0.0; 3];
    if arr(el, "zaxis", &mut z, true)? {
        count += 1;
        *alt = Alt::ZAxis(z);
    }
    let mut eu = [0.0; 3];
    if arr(el, "euler", &mut eu, true)? {
        count += 1;
        *alt = Alt::Euler(eu);
    }
    if count > 1 {
        return Err(err_at(el, "multiple orientation specifiers are not allowed"));
    }
    Ok(())
}

/// Converts an alternative orientation to a quaternion, writing it into `quat` (left
/// untouched for [`Alt::Quat`]); returns MuJoCo's message on degenerate input.
pub fn resolve(quat: &mut [f64; 4], conv: AngleConv, alt: &Alt) -> Result<(), &'static str> {
    match *alt {
        Alt::Quat => {}
        Alt::AxisAngle(aa) => {
            let mut axis = [aa[0], aa[1], aa[2]];
            let mut ang = aa[3];
            if conv.degree {
                ang = ang / 180.0 * PI;
            }
            if normvec(&mut axis) < EPS {
                return Err("axisangle too small");
            }
            let half = ang / 2.0;
            *quat = [half.cos(), half.sin() * axis[0], half.sin() * axis[1], half.sin() * axis[2]];
        }
        Alt::XyAxes(xy) => {
            let mut x = [xy[0], xy[1], xy[2]];
            let mut y = [xy[3], xy[4], xy[5]];
            if normvec(&mut x) < EPS {
                return Err("xaxis too small");
            }
            let d = dot3(&x, &y);
            y[0] -= x[0] * d;
            y[1] -= x[1] * d;
            y[2] -= x[2] * d;
            if normvec(&mut y) < EPS {
                return Err("yaxis too small");
            }
            let mut z = cross(&x, &y);
            if normvec(&mut z) < EPS {
                return Err("cross(xaxis, yaxis) too small");
            }
            *quat = frame2quat(&x, &y, &z);
        }
        Alt::ZAxis(z) => {
            let mut z = z;
            if normvec(&mut z) < EPS {
                return Err("zaxis too small");
            }
            *quat = z2quat(&z);
        }
        Alt::Euler(e) => {
            let mut e = e;
            if conv.degree {
                for x in e.iter_mut() {
                    *x = *x / 180.0 * PI;
                }
            }
            let mut q = QUNIT;
            for (i, &c) in conv.eulerseq.iter().enumerate() {
                let mut r = [(e[i] / 2.0).cos(), 0.0, 0.0, 0.0];
                let sa = (e[i] / 2.0).sin();
                match c {
                    b'x' | b'X' => r[1] = sa,
                    b'y' | b'Y' => r[2] = sa,
                    b'z' | b'Z' => r[3] = sa,
                    _ => return Err("euler sequence can only contain x, y, z, X, Y, Z"),
                }
                // lower case: rotating axes (post-multiply); upper case: fixed axes (pre-multiply)
                q = if c.is_ascii_lowercase() { mulquat(&q, &r) } else { mulquat(&r, &q) };
            }
            normvec(&mut q);
            *quat = q;
        }
    }
    Ok(())
}
