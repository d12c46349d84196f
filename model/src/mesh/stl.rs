//! Binary STL reader, as MuJoCo 4.0.0's STL decoder reads it.
//!
//! Layout: an 80-byte header, a little-endian `u32` triangle count, then 50 bytes per triangle
//! (normal, three vertices as `f32` xyz, a 2-byte attribute). MuJoCo ignores the stored normal,
//! accepts 1 to 200000 triangles, requires the file size to match the count exactly (so ASCII
//! STL is rejected) and rejects coordinates beyond 2^30 in magnitude. Repeated vertices are
//! merged by their exact bit pattern (so 0.0 and -0.0 stay distinct), numbering the distinct
//! vertices in order of first appearance.

use std::collections::HashMap;

/// Vertices (xyz triples, deduplicated) and triangles of a binary STL file.
pub fn parse(bytes: &[u8]) -> Result<(Vec<f32>, Vec<i32>), super::FormatError> {
    parse_text(bytes).map_err(super::FormatError)
}

/// [`parse`] with the message as a plain string.
fn parse_text(bytes: &[u8]) -> Result<(Vec<f32>, Vec<i32>), String> {
    if bytes.is_empty() {
        return Err("STL file is empty".into());
    }
    if bytes.len() < 84 {
        return Err("invalid header in STL file".into());
    }
    let nface = i32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]);
    if !(1..=200_000).contains(&nface) {
        return Err("number of faces should be between 1 and 200000 in STL file; \
                    perhaps this is an ASCII file?"
            .into());
    }
    let nface = nface as usize;
    if nface * 50 != bytes.len() - 84 {
        return Err("STL file has wrong size; perhaps this is an ASCII file?".into());
    }
    let mut vert: Vec<f32> = Vec::new();
    let mut face = Vec::with_capacity(3 * nface);
    let mut index: HashMap<[u32; 3], i32> = HashMap::new();
    let limit = 2f32.powi(30);
    for i in 0..nface {
        for j in 0..3 {
            let base = 84 + 50 * i + 12 * (j + 1);
            let mut bits = [0u32; 3];
            for (k, b) in bits.iter_mut().enumerate() {
                let o = base + 4 * k;
                *b = u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
            }
            let v = bits.map(f32::from_bits);
            if v.iter().any(|x| x.abs() > limit) {
                return Err("vertex in STL file exceeds maximum bounds".into());
            }
            let next = (vert.len() / 3) as i32;
            let id = *index.entry(bits).or_insert_with(|| {
                vert.extend_from_slice(&v);
                next
            });
            face.push(id);
        }
    }
    Ok((vert, face))
}
