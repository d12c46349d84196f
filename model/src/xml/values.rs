//! Attribute values as numbers, keywords and booleans, parsed the way MuJoCo parses them.
//!
//! MuJoCo splits a numeric attribute at C `isspace` characters and reads each token with C
//! `strtod` (reals) or `strtol` base 10 (ints), requiring the whole token to be consumed
//! (src/user/user_util.cc, `StringToVector`, read for behaviour). So, as measured with
//! `mujoco.MjModel.from_xml_string` 4.0.0 on `<geom pos="...">`: "1e-3", "-.5", "+1", "1.",
//! "0x10" (hex), "inf", "+inf", "INF", "infinity", "nan" and "nan(1)" are accepted (NaN with only a
//! warning); "1e", "1.2.3", "abc", "1,2,3" are "bad format"; "1e999" is "number is too large";
//! "1e-400" is accepted (underflows to 0). An attribute of only whitespace counts as absent.

use super::{Attr, Element};
use crate::error::MjcfError;

/// The characters C `isspace` accepts in the "C" locale (Rust's ASCII whitespace lacks `\v`).
fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r')
}

/// The whitespace-separated tokens of an attribute value.
pub fn tokens(value: &str) -> impl Iterator<Item = &str> {
    value.split(is_c_space).filter(|t| !t.is_empty())
}

/// Why a token is not a valid number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberError {
    /// Not a number at all, or trailing junk.
    BadFormat,
    /// Magnitude too large for the type.
    TooLarge,
}

/// Parse one token as a real the way C `strtod` does, requiring the whole token to be used.
pub fn parse_real(token: &str) -> Result<f64, NumberError> {
    let (negative, body) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let lower = body.to_ascii_lowercase();
    let magnitude = if lower == "inf" || lower == "infinity" {
        f64::INFINITY
    } else if lower == "nan"
        || (lower.starts_with("nan(") && lower.ends_with(')') && nan_payload_ok(&lower[4..lower.len() - 1]))
    {
        f64::NAN
    } else if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex(hex)?
    } else {
        if !decimal_syntax_ok(body) {
            return Err(NumberError::BadFormat);
        }
        body.parse::<f64>().map_err(|_| NumberError::BadFormat)?
    };
    if magnitude.is_infinite() && !lower.starts_with('i') {
        // strtod reports overflow (ERANGE), which MuJoCo turns into an error.
        return Err(NumberError::TooLarge);
    }
    Ok(if negative { -magnitude } else { magnitude })
}

/// `nan(...)`'s payload may hold only letters, digits and underscores.
fn nan_payload_ok(payload: &str) -> bool {
    payload.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// strtod's decimal grammar without sign: digits [. digits] [e [sign] digits], at least one
/// mantissa digit. Checked here because Rust's parser alone accepts spellings strtod does not
/// consume whole (and the reverse).
fn decimal_syntax_ok(body: &str) -> bool {
    let b = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // strtod would stop before a bare 'e', leaving it unconsumed: MuJoCo reports bad format.
        if i == start {
            return false;
        }
    }
    i == b.len()
}

/// A C99 hexadecimal float without the `0x` prefix: hex digits [. hex digits] [p [sign] digits].
fn parse_hex(s: &str) -> Result<f64, NumberError> {
    let b = s.as_bytes();
    let mut i = 0;
    // Keep the top 60 significant bits and fold the rest into a sticky bit, so the single
    // rounding in the u64 -> f64 conversion is correct to nearest-even.
    let mut mantissa: u64 = 0;
    let mut sticky = false;
    let mut exp2: i64 = 0;
    let mut digits = 0;
    let mut seen_point = false;
    while i < b.len() {
        let c = b[i];
        if c == b'.' && !seen_point {
            seen_point = true;
            i += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else { break };
        digits += 1;
        if mantissa >> 56 == 0 {
            mantissa = mantissa << 4 | u64::from(d);
            if seen_point {
                exp2 -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                exp2 += 4;
            }
        }
        i += 1;
    }
    if digits == 0 {
        return Err(NumberError::BadFormat);
    }
    if i < b.len() && b[i] == b'p' {
        i += 1;
        let mut sign = 1i64;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            if b[i] == b'-' {
                sign = -1;
            }
            i += 1;
        }
        let start = i;
        let mut e: i64 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            e = (e * 10 + i64::from(b[i] - b'0')).min(100_000);
            i += 1;
        }
        if i == start {
            return Err(NumberError::BadFormat);
        }
        exp2 += sign * e;
    }
    if i != b.len() {
        return Err(NumberError::BadFormat);
    }
    if sticky {
        mantissa |= 1;
    }
    let mut value = mantissa as f64;
    // Scale in steps that stay exact until the result itself over- or underflows.
    let mut e = exp2.clamp(-2200, 2200);
    while e > 0 {
        let step = e.min(1000);
        value *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        value /= 2f64.powi(step as i32);
        e += step;
    }
    Ok(value)
}

/// Parse one token as an int the way C `strtol` (base 10) does, within the C `int` range.
pub fn parse_int(token: &str) -> Result<i32, NumberError> {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::BadFormat);
    }
    token.parse::<i32>().map_err(|_| NumberError::TooLarge)
}

/// Describe a bad token for an error message.
fn number_message(attr: &Attr, element: &str, token: &str, index: usize, what: &str, err: NumberError) -> String {
    match err {
        NumberError::BadFormat => {
            format!("attribute '{}' of <{element}>: value {} '{token}' is not {what}", attr.name, index + 1)
        }
        NumberError::TooLarge => {
            format!("attribute '{}' of <{element}>: value {} '{token}' is too large for {what}", attr.name, index + 1)
        }
    }
}

/// Parse all tokens of `attr` (on element `element`) as reals.
pub fn reals_of(attr: &Attr, element: &str) -> Result<Vec<f64>, MjcfError> {
    tokens(&attr.value)
        .enumerate()
        .map(|(i, t)| {
            parse_real(t)
                .map_err(|e| MjcfError::new(attr.pos.clone(), number_message(attr, element, t, i, "a real number", e)))
        })
        .collect()
}

/// Parse all tokens of `attr` (on element `element`) as ints.
pub fn ints_of(attr: &Attr, element: &str) -> Result<Vec<i32>, MjcfError> {
    tokens(&attr.value)
        .enumerate()
        .map(|(i, t)| {
            parse_int(t)
                .map_err(|e| MjcfError::new(attr.pos.clone(), number_message(attr, element, t, i, "an integer", e)))
        })
        .collect()
}

/// The index of `word` in `allowed`, or an error listing the allowed words.
pub fn keyword_of(attr: &Attr, element: &str, allowed: &[&str]) -> Result<usize, MjcfError> {
    let word = attr.value.as_str();
    allowed.iter().position(|w| *w == word).ok_or_else(|| {
        MjcfError::new(
            attr.pos.clone(),
            format!(
                "attribute '{}' of <{element}>: invalid keyword '{word}'; expected one of: {}",
                attr.name,
                allowed.join(", ")
            ),
        )
    })
}

/// Check that `n` values fit the count range `min..=max` (`max` `None` = unbounded).
pub fn check_count(
    attr: &Attr,
    element: &str,
    n: usize,
    min: usize,
    max: Option<usize>,
    what: &str,
) -> Result<(), MjcfError> {
    let expected = match max {
        Some(max) if max == min => format!("{min}"),
        Some(max) => format!("{min} to {max}"),
        None => format!("at least {min}"),
    };
    if n < min || max.is_some_and(|max| n > max) {
        let plural = if n == 1 { "" } else { "s" };
        return Err(MjcfError::new(
            attr.pos.clone(),
            format!("attribute '{}' of <{element}>: expected {expected} {what}, found {n} value{plural}", attr.name),
        ));
    }
    Ok(())
}

impl Element {
    /// All values of attribute `name` as reals; `None` if absent or blank (as in MuJoCo).
    pub fn reals(&self, name: &str) -> Result<Option<Vec<f64>>, MjcfError> {
        match self.attr(name) {
            None => Ok(None),
            Some(a) => {
                let v = reals_of(a, &self.name)?;
                Ok(if v.is_empty() { None } else { Some(v) })
            }
        }
    }

    /// Attribute `name` as exactly `N` reals; `None` if absent or blank.
    pub fn reals_n<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>, MjcfError> {
        let Some(v) = self.reals(name)? else { return Ok(None) };
        let Some(a) = self.attr(name) else { return Ok(None) };
        check_count(a, &self.name, v.len(), N, Some(N), "real numbers")?;
        let mut out = [0.0; N];
        out.copy_from_slice(&v);
        Ok(Some(out))
    }

    /// Like [`Element::reals`], but a NaN value is an error at the attribute. MuJoCo 4.0.0 reads
    /// NaN and infinities everywhere (with only a warning for NaN) and rejects few of them later,
    /// e.g. "nan size in geom" (probed on geom size/pos/quat/mass, body pos, joint range, option
    /// timestep/gravity: only geom size fails); the compiler calls this where MuJoCo rejects NaN.
    pub fn reals_not_nan(&self, name: &str) -> Result<Option<Vec<f64>>, MjcfError> {
        let values = self.reals(name)?;
        if let (Some(v), Some(a)) = (&values, self.attr(name)) {
            if let Some(i) = v.iter().position(|x| x.is_nan()) {
                return Err(MjcfError::new(
                    a.pos.clone(),
                    format!("attribute '{name}' of <{}>: value {} is NaN; expected a number", self.name, i + 1),
                ));
            }
        }
        Ok(values)
    }

    /// Attribute `name` as one real; `None` if absent or blank.
    pub fn real(&self, name: &str) -> Result<Option<f64>, MjcfError> {
        Ok(self.reals_n::<1>(name)?.map(|v| v[0]))
    }

    /// All values of attribute `name` as ints; `None` if absent or blank.
    pub fn ints(&self, name: &str) -> Result<Option<Vec<i32>>, MjcfError> {
        match self.attr(name) {
            None => Ok(None),
            Some(a) => {
                let v = ints_of(a, &self.name)?;
                Ok(if v.is_empty() { None } else { Some(v) })
            }
        }
    }

    /// Attribute `name` as one int; `None` if absent or blank.
    pub fn int(&self, name: &str) -> Result<Option<i32>, MjcfError> {
        let Some(v) = self.ints(name)? else { return Ok(None) };
        let Some(a) = self.attr(name) else { return Ok(None) };
        check_count(a, &self.name, v.len(), 1, Some(1), "integer")?;
        Ok(Some(v[0]))
    }

    /// Attribute `name` as an index into `allowed` (exact, case-sensitive match); `None` if absent.
    pub fn keyword(&self, name: &str, allowed: &[&str]) -> Result<Option<usize>, MjcfError> {
        self.attr(name).map(|a| keyword_of(a, &self.name, allowed)).transpose()
    }

    /// Attribute `name` as a bool (`true`/`false`, exactly as MuJoCo requires); `None` if absent.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, MjcfError> {
        Ok(self.keyword(name, &["false", "true"])?.map(|i| i == 1))
    }

    /// Attribute `name` as text; `None` if absent.
    pub fn string(&self, name: &str) -> Option<&str> {
        self.attr(name).map(|a| a.value.as_str())
    }

    /// Attribute `name`, or an error at the element saying it is required.
    pub fn required(&self, name: &str) -> Result<&Attr, MjcfError> {
        self.attr(name).ok_or_else(|| {
            MjcfError::new(self.pos.clone(), format!("<{}> is missing its required attribute '{name}'", self.name))
        })
    }
}
