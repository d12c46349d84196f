//! Wavefront OBJ reader that yields the same vertices and triangles MuJoCo 4.0.0 gets.
//!
//! MuJoCo decodes OBJ files with tinyobjloader (with its default of triangulating polygons)
//! and then keeps only the *first shape*: the faces before the second `o`/`g` statement that
//! starts a non-empty shape. To obtain the same `float` vertex values and the same triangles
//! this reader follows that library's behaviour:
//! - Numbers are parsed by accumulating decimal digits in a `double` (fraction digits weighted
//!   by a table of 0.1, 0.01, ..., and `pow(10, -k)` past the seventh), the exponent applied as
//!   `ldexp(m * pow(5, e), e)`, then narrowed to `float`. This differs from a correctly rounded
//!   parse in the last bits of the double, which can occasionally change the float.
//! - Missing coordinates default to 0; a token that is not a number also gives 0.
//! - Face indices are 1-based, negative ones count back from the vertices read so far; a vertex
//!   index of 0 makes the whole file invalid (a texcoord/normal index of 0 becomes -1).
//! - Quads are split along the shorter diagonal in `float` (ties: a b d, b c d); larger
//!   polygons by the library's ear clipping in the coordinate plane most aligned with the first
//!   non-degenerate corner. MuJoCo 4.0.0 ships a newer tinyobjloader than the commit pinned in
//!   the Aug 2026 source snapshot; the quad rule was measured: `f 1 4 3 2` of a unit cube
//!   (equal diagonals) gives `mesh_face` (0 3 1), (3 2 1).
//! - Lines (`l`) in a first shape without faces become degenerate triangles (i, j, j).

/// What an OBJ file contributes to a mesh, before MuJoCo's processing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjData {
    /// Vertex positions, xyz triples (all `v` lines, whether used by faces or not).
    pub vert: Vec<f32>,
    /// Vertex normals, xyz triples (all `vn` lines).
    pub normal: Vec<f32>,
    /// Triangles of the first shape, as 0-based vertex indices.
    pub face: Vec<i32>,
    /// Per-corner normal indices of `face` (empty when the file has no normals).
    pub facenormal: Vec<i32>,
}

/// One corner of a face: vertex, texcoord and normal index (-1 when absent).
#[derive(Clone, Copy, Debug)]
struct Corner {
    v: i32,
    vt: i32,
    vn: i32,
}

/// A shape under construction: its triangles (as corners) and polyline corners.
#[derive(Default)]
struct Shape {
    tri: Vec<Corner>,
    lines: Vec<Vec<Corner>>,
    points: usize,
}

/// Faces and lines not yet exported into the current shape.
#[derive(Default)]
struct Group {
    faces: Vec<Vec<Corner>>,
    lines: Vec<Vec<Corner>>,
    points: usize,
}

impl Group {
    fn is_empty(&self) -> bool {
        self.faces.is_empty() && self.lines.is_empty() && self.points == 0
    }
}

/// Byte at `i`, or 0 past the end (the C string terminator).
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// Length of the prefix of `s[i..]` made of bytes in `set` (C `strspn`).
fn span(s: &[u8], i: usize, set: &[u8]) -> usize {
    let mut n = 0;
    while at(s, i + n) != 0 && set.contains(&at(s, i + n)) {
        n += 1;
    }
    n
}

/// Length of the prefix of `s[i..]` made of bytes not in `set` (C `strcspn`).
fn cspan(s: &[u8], i: usize, set: &[u8]) -> usize {
    let mut n = 0;
    while at(s, i + n) != 0 && !set.contains(&at(s, i + n)) {
        n += 1;
    }
    n
}

/// C `atoi`: optional whitespace and sign, then decimal digits (wrapping on overflow).
fn atoi(s: &[u8], mut i: usize) -> i32 {
    while matches!(at(s, i), b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let neg = at(s, i) == b'-';
    if matches!(at(s, i), b'+' | b'-') {
        i += 1;
    }
    let mut v: i32 = 0;
    while at(s, i).is_ascii_digit() {
        v = v.wrapping_mul(10).wrapping_add((at(s, i) - b'0') as i32);
        i += 1;
    }
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// tinyobjloader's number parser on `s[start..end]`; `None` when it is not a number.
fn parse_double(s: &[u8], start: usize, end: usize) -> Option<f64> {
    const POW_LUT: [f64; 8] = [1.0, 0.1, 0.01, 0.001, 0.0001, 0.00001, 0.000001, 0.0000001];
    if start >= end {
        return None;
    }
    // Past `end` the text holds a delimiter (blank, `\r` or the terminator), never a digit.
    let ch = |i: usize| at(s, i);
    let mut cur = start;
    let mut mantissa = 0.0f64;
    let mut exponent: i32 = 0;
    let mut negative = false;
    let mut leading_dot = false;
    match at(s, cur) {
        b'+' | b'-' => {
            negative = at(s, cur) == b'-';
            cur += 1;
            leading_dot = cur != end && at(s, cur) == b'.';
        }
        b'0'..=b'9' => {}
        b'.' => leading_dot = true,
        _ => return None,
    }
    if !leading_dot {
        let mut read = 0;
        while cur != end && ch(cur).is_ascii_digit() {
            mantissa *= 10.0;
            mantissa += (ch(cur) - b'0') as i32 as f64;
            cur += 1;
            read += 1;
        }
        if read == 0 {
            return None;
        }
    }
    let assemble = |m: f64, e: i32| {
        let sign = if negative { -1.0 } else { 1.0 };
        let mag = if e != 0 { ldexp(m * 5f64.powf(e as f64), e) } else { m };
        sign * mag
    };
    if cur == end {
        return Some(assemble(mantissa, exponent));
    }
    if at(s, cur) == b'.' {
        cur += 1;
        let mut read: i32 = 1;
        while cur != end && ch(cur).is_ascii_digit() {
            let w = if read < 8 { POW_LUT[read as usize] } else { 10f64.powf(-read as f64) };
            mantissa += (ch(cur) - b'0') as i32 as f64 * w;
            read += 1;
            cur += 1;
        }
    } else if !matches!(at(s, cur), b'e' | b'E') {
        return Some(assemble(mantissa, exponent));
    }
    if cur == end {
        return Some(assemble(mantissa, exponent));
    }
    if matches!(at(s, cur), b'e' | b'E') {
        cur += 1;
        let mut exp_neg = false;
        if cur != end && matches!(at(s, cur), b'+' | b'-') {
            exp_neg = at(s, cur) == b'-';
            cur += 1;
        } else if !ch(cur).is_ascii_digit() {
            return None;
        }
        let mut read = 0;
        while cur != end && ch(cur).is_ascii_digit() {
            if exponent > i32::MAX / 10 {
                return None;
            }
            exponent = exponent.wrapping_mul(10).wrapping_add((ch(cur) - b'0') as i32);
            cur += 1;
            read += 1;
        }
        if exp_neg {
            exponent = -exponent;
        }
        if read == 0 {
            return None;
        }
    }
    Some(assemble(mantissa, exponent))
}

/// `x * 2^e` (C `ldexp`), split in steps so intermediate powers of two stay representable.
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

/// Parses one real at `*i` (skipping blanks), with a default when absent or malformed.
fn parse_real(s: &[u8], i: &mut usize, default: f64) -> f32 {
    *i += span(s, *i, b" \t");
    let end = *i + cspan(s, *i, b" \t\r");
    let v = parse_double(s, *i, end).unwrap_or(default);
    *i = end;
    v as f32
}

/// Converts a 1-based or negative (relative) OBJ index to 0-based. Index 0 becomes -1 and is
/// accepted only where `allow_zero` (texcoord and normal slots); a relative index before the
/// first vertex is rejected.
fn fix_index(idx: i32, n: usize, allow_zero: bool) -> Option<i32> {
    match idx {
        0 => allow_zero.then_some(-1),
        i if i > 0 => Some(i - 1),
        i => {
            let r = (n as i32).wrapping_add(i);
            (r >= 0).then_some(r)
        }
    }
}

/// Parses a face corner `v`, `v/t`, `v//n` or `v/t/n` at `*i`.
fn parse_corner(s: &[u8], i: &mut usize, nv: usize, nn: usize, nt: usize) -> Option<Corner> {
    let mut c = Corner { v: -1, vt: -1, vn: -1 };
    c.v = fix_index(atoi(s, *i), nv, false)?;
    *i += cspan(s, *i, b"/ \t\r");
    if at(s, *i) != b'/' {
        return Some(c);
    }
    *i += 1;
    if at(s, *i) == b'/' {
        *i += 1;
        c.vn = fix_index(atoi(s, *i), nn, true)?;
        *i += cspan(s, *i, b"/ \t\r");
        return Some(c);
    }
    c.vt = fix_index(atoi(s, *i), nt, true)?;
    *i += cspan(s, *i, b"/ \t\r");
    if at(s, *i) != b'/' {
        return Some(c);
    }
    *i += 1;
    c.vn = fix_index(atoi(s, *i), nn, true)?;
    *i += cspan(s, *i, b"/ \t\r");
    Some(c)
}

/// Even-odd point-in-triangle test (W. R. Franklin's `pnpoly`), in `float`.
fn pnpoly(vx: &[f32; 3], vy: &[f32; 3], tx: f32, ty: f32) -> bool {
    let mut inside = false;
    let mut j = 2;
    for i in 0..3 {
        if (vy[i] > ty) != (vy[j] > ty) && tx < (vx[j] - vx[i]) * (ty - vy[i]) / (vy[j] - vy[i]) + vx[i] {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Coordinate `axis` of vertex `vi`, or `None` when the vertex does not exist (yet).
fn coord(v: &[f32], vi: i32, axis: usize) -> Option<f32> {
    let k = (vi as usize).wrapping_mul(3).wrapping_add(axis);
    if vi < 0 || k >= v.len() {
        None
    } else {
        Some(v[k])
    }
}

/// Cuts one polygon into triangles and appends them to `out`.
fn triangulate(face: &[Corner], v: &[f32], out: &mut Vec<Corner>) {
    let n = face.len();
    if n == 3 {
        out.extend_from_slice(face);
        return;
    }
    if n == 4 {
        // Quads: split along the shorter diagonal (ties: the 1-3 diagonal); a quad with a
        // missing vertex is dropped.
        let mut p = [[0f32; 3]; 4];
        for (pj, c) in p.iter_mut().zip(face) {
            for (a, x) in pj.iter_mut().enumerate() {
                match coord(v, c.v, a) {
                    Some(val) => *x = val,
                    None => return,
                }
            }
        }
        let sq = |a: &[f32; 3], b: &[f32; 3]| {
            let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        };
        let [c0, c1, c2, c3] = [face[0], face[1], face[2], face[3]];
        if sq(&p[0], &p[2]) < sq(&p[1], &p[3]) {
            out.extend_from_slice(&[c0, c1, c2, c0, c2, c3]);
        } else {
            out.extend_from_slice(&[c0, c1, c3, c1, c2, c3]);
        }
        return;
    }
    // Projection plane: drop the axis along which the first proper corner's normal is largest.
    let mut axes = [1usize, 2usize];
    for k in 0..n {
        let c = [face[k].v, face[(k + 1) % n].v, face[(k + 2) % n].v];
        let mut p = [[0f32; 3]; 3];
        let mut valid = true;
        for (pj, &vi) in p.iter_mut().zip(&c) {
            for (a, x) in pj.iter_mut().enumerate() {
                match coord(v, vi, a) {
                    Some(val) => *x = val,
                    None => valid = false,
                }
            }
        }
        if !valid {
            continue;
        }
        let e0 = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
        let e1 = [p[2][0] - p[1][0], p[2][1] - p[1][1], p[2][2] - p[1][2]];
        let cx = (e0[1] * e1[2] - e0[2] * e1[1]).abs();
        let cy = (e0[2] * e1[0] - e0[0] * e1[2]).abs();
        let cz = (e0[0] * e1[1] - e0[1] * e1[0]).abs();
        let eps = f32::EPSILON;
        if cx > eps || cy > eps || cz > eps {
            if !(cx > cy && cx > cz) {
                axes[0] = 0;
                if cz > cx && cz > cy {
                    axes[1] = 1;
                }
            }
            break;
        }
    }
    let xy = |vi: i32| match (coord(v, vi, axes[0]), coord(v, vi, axes[1])) {
        (Some(x), Some(y)) => Some((x, y)),
        _ => None,
    };

    let mut remaining: Vec<Corner> = face.to_vec();
    let mut guess = 0usize;
    let mut iterations = n;
    let mut previous = remaining.len();
    while remaining.len() > 3 && iterations > 0 {
        let np = remaining.len();
        if guess >= np {
            guess -= np;
        }
        if previous != np {
            previous = np;
            iterations = np;
        } else {
            iterations -= 1;
        }
        let mut ind = [remaining[0]; 3];
        let mut vx = [0f32; 3];
        let mut vy = [0f32; 3];
        for k in 0..3 {
            ind[k] = remaining[(guess + k) % np];
            let (x, y) = xy(ind[k].v).unwrap_or((0.0, 0.0));
            vx[k] = x;
            vy[k] = y;
        }
        let cross = (vx[1] - vx[0]) * (vy[2] - vy[1]) - (vy[1] - vy[0]) * (vx[2] - vx[1]);
        // The library's "area" here is only the first corner's term of the shoelace sum of
        // the candidate triangle; reproduced as is.
        let area = (vx[0] * vy[1] - vy[0] * vx[1]) * 0.5;
        if cross * area < 0.0 {
            guess += 1;
            continue;
        }
        let overlap = (3..np).any(|o| {
            let idx = (guess + o) % np;
            match xy(remaining[idx].v) {
                Some((tx, ty)) => pnpoly(&vx, &vy, tx, ty),
                None => false,
            }
        });
        if overlap {
            guess += 1;
            continue;
        }
        out.extend_from_slice(&ind);
        remaining.remove((guess + 1) % np);
    }
    if remaining.len() == 3 {
        out.extend_from_slice(&remaining);
    }
}

/// Moves the pending group into `shape`, triangulating its faces; false if the group was empty.
fn export(shape: &mut Shape, group: &Group, v: &[f32]) -> bool {
    if group.is_empty() {
        return false;
    }
    for face in &group.faces {
        if face.len() >= 3 {
            triangulate(face, v, &mut shape.tri);
        }
    }
    shape.lines.extend(group.lines.iter().cloned());
    shape.points += group.points;
    true
}

/// Parses OBJ text. Errors (as messages) only where tinyobjloader reports the file invalid.
pub fn parse(bytes: &[u8]) -> Result<ObjData, super::FormatError> {
    parse_text(bytes).map_err(super::FormatError)
}

/// [`parse`] with the message as a plain string.
fn parse_text(bytes: &[u8]) -> Result<ObjData, String> {
    let mut v: Vec<f32> = Vec::new();
    let mut vn: Vec<f32> = Vec::new();
    let mut nt = 0usize;
    let mut first: Option<Shape> = None;
    let mut shape = Shape::default();
    let mut group = Group::default();

    for (lineno, raw) in split_lines(bytes).enumerate() {
        let line = match raw.iter().position(|&b| b == 0) {
            Some(p) => &raw[..p],
            None => raw,
        };
        let mut i = span(line, 0, b" \t");
        let c0 = at(line, i);
        let c1 = at(line, i + 1);
        let blank = |c: u8| c == b' ' || c == b'\t';
        if c0 == 0 || c0 == b'#' {
            continue;
        }
        if c0 == b'v' && blank(c1) {
            i += 2;
            for _ in 0..3 {
                let x = parse_real(line, &mut i, 0.0);
                v.push(x);
            }
        } else if c0 == b'v' && c1 == b'n' && blank(at(line, i + 2)) {
            i += 3;
            for _ in 0..3 {
                let x = parse_real(line, &mut i, 0.0);
                vn.push(x);
            }
        } else if c0 == b'v' && c1 == b't' && blank(at(line, i + 2)) {
            nt += 1;
        } else if (c0 == b'f' || c0 == b'l' || c0 == b'p') && blank(c1) {
            i += 2;
            if c0 == b'f' {
                i += span(line, i, b" \t");
            }
            let mut corners = Vec::with_capacity(3);
            while !matches!(at(line, i), b'\r' | b'\n' | 0) {
                match parse_corner(line, &mut i, v.len() / 3, vn.len() / 3, nt) {
                    Some(c) => corners.push(c),
                    None => return Err(format!("could not parse OBJ line {}: index 0 or missing index", lineno + 1)),
                }
                i += span(line, i, b" \t\r");
            }
            match c0 {
                b'f' => group.faces.push(corners),
                b'l' => group.lines.push(corners),
                _ => group.points += corners.len(),
            }
        } else if (c0 == b'g' || c0 == b'o') && blank(c1) {
            export(&mut shape, &group, &v);
            let keep = if c0 == b'g' {
                !shape.tri.is_empty()
            } else {
                !shape.tri.is_empty() || !shape.lines.is_empty() || shape.points > 0
            };
            close(&mut shape, keep, &mut first);
            group = Group::default();
        }
    }
    let exported = export(&mut shape, &group, &v);
    if exported || !shape.tri.is_empty() {
        close(&mut shape, true, &mut first);
    }

    let mut out = ObjData { vert: v, normal: vn, ..Default::default() };
    if let Some(sh) = first {
        if !sh.tri.is_empty() {
            let with_normals = !out.normal.is_empty();
            for c in &sh.tri {
                out.face.push(c.v);
                if with_normals {
                    out.facenormal.push(c.vn);
                }
            }
        } else {
            for line in &sh.lines {
                for w in line.windows(2) {
                    out.face.extend_from_slice(&[w[0].v, w[1].v, w[1].v]);
                }
            }
        }
    }
    Ok(out)
}

/// Finishes the current shape; it becomes `first` if kept and no shape was kept before.
fn close(shape: &mut Shape, keep: bool, first: &mut Option<Shape>) {
    if keep && first.is_none() {
        *first = Some(std::mem::take(shape));
    } else {
        *shape = Shape::default();
    }
}

/// Splits text into lines at `\n`, `\r\n` or a lone `\r`.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(rest.len());
        let line = &rest[..end];
        let mut next = end;
        if next < rest.len() {
            if rest[next] == b'\r' && rest.get(next + 1) == Some(&b'\n') {
                next += 1;
            }
            next += 1;
        }
        rest = &rest[next..];
        Some(line)
    })
}
