//! Typed reading of MJCF attribute values, with errors that point at the attribute.

use crate::error::MjcfError;
use crate::xml::{values, Attr, Element};

/// Result type of the compiler.
pub type Res<T> = Result<T, MjcfError>;

/// An error at an element's position.
pub fn err_at(el: &Element, msg: impl Into<String>) -> MjcfError {
    MjcfError::new(el.pos.clone(), msg)
}

/// An error at an attribute's position.
pub fn err_attr(a: &Attr, msg: impl Into<String>) -> MjcfError {
    MjcfError::new(a.pos.clone(), msg)
}

/// Parses one number as C `strtod` does (the reader's rules).
fn parse_f64(a: &Attr, tok: &str) -> Res<f64> {
    values::parse_real(tok).map_err(|_| err_attr(a, format!("attribute '{}': '{}' is not a valid number", a.name, tok)))
}

/// All numbers in an attribute value.
pub fn nums(a: &Attr) -> Res<Vec<f64>> {
    values::tokens(&a.value).map(|t| parse_f64(a, t)).collect()
}

/// Reads up to `N` numbers into `dst` (exactly `N` when `exact`); true when present.
pub fn arr<const N: usize>(el: &Element, name: &str, dst: &mut [f64; N], exact: bool) -> Res<bool> {
    let Some(a) = el.attr(name) else { return Ok(false) };
    let v = nums(a)?;
    if v.is_empty() {
        // MuJoCo treats an all-whitespace value as absent
        return Ok(false);
    }
    if v.len() > N || (exact && v.len() != N) {
        let want = if exact { format!("{N}") } else { format!("1 to {N}") };
        return Err(err_attr(a, format!("attribute '{name}' expects {want} numbers, got {}", v.len())));
    }
    dst[..v.len()].copy_from_slice(&v);
    Ok(true)
}

/// Reads one number; true when present.
pub fn num(el: &Element, name: &str, dst: &mut f64) -> Res<bool> {
    let mut a = [0.0];
    if arr(el, name, &mut a, true)? {
        *dst = a[0];
        return Ok(true);
    }
    Ok(false)
}

/// Reads a whitespace-separated list of numbers of any length.
pub fn vec(el: &Element, name: &str) -> Res<Option<Vec<f64>>> {
    el.attr(name).map(nums).transpose()
}

/// Reads one integer; true when present. An all-whitespace value is absent, as for numbers
/// (measured with MuJoCo 4.0.0: `contype=" "` loads with the default contype).
pub fn int(el: &Element, name: &str, dst: &mut i32) -> Res<bool> {
    let Some(a) = el.attr(name) else { return Ok(false) };
    let v = ints(a)?;
    if v.is_empty() {
        return Ok(false);
    }
    if v.len() != 1 {
        return Err(err_attr(a, format!("attribute '{name}' expects one integer")));
    }
    *dst = v[0];
    Ok(true)
}

/// All integers in an attribute value.
pub fn ints(a: &Attr) -> Res<Vec<i32>> {
    values::tokens(&a.value)
        .map(|t| {
            values::parse_int(t).map_err(|_| err_attr(a, format!("attribute '{}': '{}' is not an integer", a.name, t)))
        })
        .collect()
}

/// Reads an attribute whose value is one of the keywords in `map`.
pub fn keyword<T: Copy>(el: &Element, name: &str, map: &[(&str, T)]) -> Res<Option<T>> {
    let Some(a) = el.attr(name) else { return Ok(None) };
    let v = a.value.trim();
    for (k, t) in map {
        if *k == v {
            return Ok(Some(*t));
        }
    }
    let keys: Vec<&str> = map.iter().map(|(k, _)| *k).collect();
    Err(err_attr(a, format!("attribute '{name}': '{v}' is not one of [{}]", keys.join(", "))))
}

/// Reads a `true`/`false` attribute; true when present.
pub fn boolean(el: &Element, name: &str, dst: &mut bool) -> Res<bool> {
    if let Some(b) = keyword(el, name, &[("false", false), ("true", true)])? {
        *dst = b;
        return Ok(true);
    }
    Ok(false)
}

/// Tri-state `false`/`true`/`auto` as MuJoCo numbers it (0, 1, 2).
pub const FALSE_TRUE_AUTO: [(&str, u8); 3] = [("false", 0), ("true", 1), ("auto", 2)];

/// Reads a string attribute.
pub fn string(el: &Element, name: &str) -> Option<String> {
    el.attr(name).map(|a| a.value.clone())
}
