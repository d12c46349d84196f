//! MuJoCo's own binary MSH mesh format.
//!
//! Layout (little-endian): four `i32` counts `nvertex, nnormal, ntexcoord, nface`, then
//! `f32 vertex[3*nvertex]`, `f32 normal[3*nnormal]`, `f32 texcoord[2*ntexcoord]`,
//! `i32 face[3*nface]`. `nvertex >= 4`; `nnormal` and `ntexcoord` are 0 or `nvertex`; the
//! file size must be exactly `16 + 12*(nvertex + nnormal + nface) + 8*ntexcoord`.

/// Contents of an MSH file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MshData {
    /// Vertex positions, xyz triples.
    pub vert: Vec<f32>,
    /// Vertex normals, xyz triples (empty or one per vertex).
    pub normal: Vec<f32>,
    /// Triangles, 0-based vertex indices.
    pub face: Vec<i32>,
    /// Per-corner normal indices: the file's triangles before any flip.
    pub facenormal: Vec<i32>,
}

/// Reads an MSH file. With `righthand == false` (a mirroring scale) the triangles are
/// flipped here, as MuJoCo's MSH loader does (its mesh processing flips them once more).
pub fn parse(bytes: &[u8], righthand: bool) -> Result<MshData, super::FormatError> {
    parse_text(bytes, righthand).map_err(super::FormatError)
}

/// [`parse`] with the message as a plain string.
fn parse_text(bytes: &[u8], righthand: bool) -> Result<MshData, String> {
    if bytes.is_empty() {
        return Err("MSH file is empty".into());
    }
    if bytes.len() < 16 {
        return Err("missing header in MSH file".into());
    }
    let word = |k: usize| [bytes[4 * k], bytes[4 * k + 1], bytes[4 * k + 2], bytes[4 * k + 3]];
    let (nv, nn, nt, nf) = (
        i32::from_le_bytes(word(0)),
        i32::from_le_bytes(word(1)),
        i32::from_le_bytes(word(2)),
        i32::from_le_bytes(word(3)),
    );
    if nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err("invalid sizes in MSH file".into());
    }
    let max = i32::MAX as i64 / 4;
    if nv as i64 >= max / 3 || nn as i64 >= max / 3 || nt as i64 >= max / 2 || nf as i64 >= max / 3 {
        return Err("too large sizes in MSH file".into());
    }
    let (nv, nn, nt, nf) = (nv as usize, nn as usize, nt as usize, nf as usize);
    if bytes.len() != 16 + 12 * (nv + nn + nf) + 8 * nt {
        return Err("unexpected file size in MSH file".into());
    }
    let mut pos = 4;
    let mut words = |n: usize| {
        let out: Vec<[u8; 4]> = (pos..pos + n).map(word).collect();
        pos += n;
        out
    };
    let vert: Vec<f32> = words(3 * nv).into_iter().map(f32::from_le_bytes).collect();
    let normal: Vec<f32> = words(3 * nn).into_iter().map(f32::from_le_bytes).collect();
    words(2 * nt);
    let mut face: Vec<i32> = words(3 * nf).into_iter().map(i32::from_le_bytes).collect();
    let facenormal = face.clone();
    if !righthand {
        for tri in face.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
    }
    Ok(MshData { vert, normal, face, facenormal })
}
