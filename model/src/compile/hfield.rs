//! Height-field assets (MuJoCo's `mjCHField`): inline `elevation` data, PNG images and
//! MuJoCo's binary height-field files.
//!
//! Elevations are single precision; MuJoCo stores rows bottom to top, then shifts and scales
//! the data to [0, 1] (in `f32` arithmetic). What MuJoCo 4.0.0 does with files was measured
//! with probe scenes (hand-made PNGs and binary files) against the library:
//! - The format comes from `content_type` when it is given and well-formed (`type/subtype`,
//!   optionally followed by `;` and parameters that contain a `=`; compared case-sensitively,
//!   parameters dropped), otherwise from the file name: a `.png` extension, in any case, is
//!   PNG; anything else, and a malformed `content_type`, is the binary format. A well-formed
//!   type other than `image/png` and `image/vnd.mujoco.hfield` is an error.
//! - Files resolve against the model's directory joined with `compiler/meshdir` (which
//!   `assetdir` also sets; `texturedir` is not used).
//! - A PNG is reduced to one 8-bit channel: grey images give their grey level, RGB(A) images
//!   their red channel, palette images the red of the palette entry (an index past the
//!   palette's end reads 0); alpha is ignored and 16-bit samples keep their high byte. Image
//!   rows are top to bottom, so they are flipped like inline elevations.
//! - The binary format is `i32 nrow, i32 ncol` then `nrow*ncol` `f32`s (little endian), and
//!   its rows are stored as they are, not flipped; the file size must match exactly.
//! - Both need at least 2 rows and 2 columns (so does inline data). With a file, `nrow`,
//!   `ncol` and `elevation` are parsed but ignored, whatever their values.
//! - A hfield without a name is named after its file (no directory, no extension).
//! - Broken PNGs (bad signature, CRC or Adler-32, truncation, bad filter, bad depth, unknown
//!   critical chunk, palette type without PLTE) are errors in both. Known difference: MuJoCo
//!   also rejects an image whose zlib stream holds more data than the image needs, which the
//!   `png` crate accepts (and `compiler/strippath` is not applied, as for meshes).

use std::path::Path;

use super::attrs::{arr, err_at, int, string, vec, Res};
use crate::error::Position;
use crate::model::Model;
use crate::xml::Element;

/// A compiled height field.
#[derive(Clone, Debug)]
pub struct HField {
    /// Name.
    pub name: String,
    /// (x half-size, y half-size, elevation z-top, base thickness).
    pub size: [f64; 4],
    /// Rows.
    pub nrow: usize,
    /// Columns.
    pub ncol: usize,
    /// Normalised elevations, row-major from the bottom row.
    pub data: Vec<f32>,
    /// Where the element is.
    pub pos: Position,
}

/// Largest number of samples accepted (as inline data).
const MAX_SAMPLES: usize = 1 << 28;

/// Reads and compiles one `<hfield>` asset; `dir` is the directory its `file` resolves
/// against (the model's directory joined with `compiler/meshdir`).
pub fn read_hfield(el: &Element, dir: &Path) -> Res<HField> {
    let mut name = string(el, "name").unwrap_or_default();
    let mut size = [0.0; 4];
    if !arr(el, "size", &mut size, true)? {
        return Err(err_at(el, "required attribute missing: 'size'"));
    }
    let (mut nrow, mut ncol) = (0, 0);
    int(el, "nrow", &mut nrow)?;
    int(el, "ncol", &mut ncol)?;
    // a blank elevation is no elevation (measured: elevation=" " on a 4 x 5 grid loads as zeros)
    let elevation = vec(el, "elevation")?.filter(|e| !e.is_empty());
    let positive = |el: &Element| {
        if size.iter().any(|&s| s <= 0.0) {
            return Err(err_at(el, "size parameter is not positive in hfield"));
        }
        Ok(())
    };
    let (nrow, ncol, mut data) = match string(el, "file").filter(|f| !f.is_empty()) {
        Some(file) => {
            positive(el)?;
            if name.is_empty() {
                let base = file.rsplit(['/', '\\']).next().unwrap_or(&file);
                name = base.rfind('.').map_or(base, |i| &base[..i]).to_string();
            }
            load_file(el, &file, dir)?
        }
        None => {
            if nrow < 1 || ncol < 1 {
                return Err(err_at(el, "hfield not specified"));
            }
            let (nrow, ncol) = (nrow as usize, ncol as usize);
            if elevation.as_ref().is_some_and(|e| e.len() != nrow * ncol) {
                return Err(err_at(el, "elevation data length must match nrow*ncol"));
            }
            check_dims(el, nrow, ncol, "")?;
            let mut data = vec![0f32; nrow * ncol];
            if let Some(elev) = elevation {
                for i in 0..nrow {
                    let flip = nrow - 1 - i;
                    for j in 0..ncol {
                        data[flip * ncol + j] = elev[i * ncol + j] as f32;
                    }
                }
            }
            positive(el)?;
            (nrow, ncol, data)
        }
    };
    if !normalise(&mut data) {
        return Err(err_at(el, "invalid data range in hfield"));
    }
    Ok(HField { name, size, nrow, ncol, data, pos: el.pos.clone() })
}

/// Shifts and scales `data` to [0, 1] in `f32`, as MuJoCo does (NaNs are skipped by the
/// extremes and stay NaN; constant data becomes 0). `false` when no sample moved the extremes
/// from their starting +-1e10 past each other: MuJoCo's "invalid data range" (measured: all NaN
/// is refused; all 1e11 loads as 1).
fn normalise(data: &mut [f32]) -> bool {
    let mut emin = 1e10f32;
    let mut emax = -1e10f32;
    for &d in data.iter() {
        emin = emin.min(d);
        emax = emax.max(d);
    }
    if emax < emin {
        return false;
    }
    for d in data.iter_mut() {
        *d -= emin;
        if f64::from(emax - emin) > super::math::EPS {
            *d /= emax - emin;
        }
    }
    true
}

/// MuJoCo's dimension checks (at least 2 x 2, and not too large).
fn check_dims(el: &Element, nrow: usize, ncol: usize, file: &str) -> Res<()> {
    let in_file = if file.is_empty() { String::new() } else { format!(" in file '{file}'") };
    if nrow < 2 || ncol < 2 {
        return Err(err_at(el, format!("hfield dimensions must be at least 2{in_file}")));
    }
    if nrow.checked_mul(ncol).is_none_or(|n| n > MAX_SAMPLES) {
        return Err(err_at(el, format!("height field too large{in_file}")));
    }
    Ok(())
}

/// The two file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `image/png`.
    Png,
    /// `image/vnd.mujoco.hfield`: the binary format.
    Binary,
}

/// `type/subtype` of a well-formed content type (parameters dropped), or `None`.
fn parse_content_type(ct: &str) -> Option<&str> {
    let (media, params) = match ct.find(';') {
        Some(i) => (&ct[..i], Some(&ct[i + 1..])),
        None => (ct, None),
    };
    let slash = media.find('/')?;
    if slash + 1 == ct.len() || params.is_some_and(|p| !p.contains('=')) {
        return None;
    }
    Some(media)
}

/// The format of `file`, from `content_type` or else the file name.
fn format_of(el: &Element, file: &str) -> Res<Format> {
    if let Some(a) = el.attr("content_type").filter(|a| !a.value.is_empty()) {
        return match parse_content_type(&a.value) {
            None | Some("image/vnd.mujoco.hfield") => Ok(Format::Binary),
            Some("image/png") => Ok(Format::Png),
            Some(other) => Err(err_at(el, format!("unsupported content type: '{other}'"))),
        };
    }
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let png = base.rfind('.').is_some_and(|i| base[i + 1..].eq_ignore_ascii_case("png"));
    Ok(if png { Format::Png } else { Format::Binary })
}

/// Reads a height-field file: (rows, columns, raw elevations from the bottom row).
fn load_file(el: &Element, file: &str, dir: &Path) -> Res<(usize, usize, Vec<f32>)> {
    let format = format_of(el, file)?;
    let path = dir.join(file);
    let bytes = std::fs::read(&path)
        .map_err(|e| err_at(el, format!("could not open hfield file '{}': {e}", path.display())))?;
    match format {
        Format::Png => {
            if bytes.is_empty() {
                return Err(err_at(el, format!("empty PNG file '{file}'")));
            }
            let (width, height, grey) =
                decode_png(&bytes).map_err(|e| err_at(el, format!("error decoding PNG file '{file}': {e}")))?;
            check_dims(el, height, width, file)?;
            let mut data = vec![0f32; width * height];
            for (r, row) in grey.chunks_exact(width).enumerate() {
                let flip = height - 1 - r;
                for (c, &v) in row.iter().enumerate() {
                    data[flip * width + c] = f32::from(v);
                }
            }
            Ok((height, width, data))
        }
        Format::Binary => {
            if bytes.is_empty() {
                return Err(err_at(el, format!("could not read hfield file '{file}'")));
            }
            if bytes.len() < 8 {
                return Err(err_at(el, format!("hfield missing header '{file}'")));
            }
            let word = |i: usize| [bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]];
            let nrow = i32::from_le_bytes(word(0));
            let ncol = i32::from_le_bytes(word(4));
            if nrow < 2 || ncol < 2 {
                return Err(err_at(el, format!("hfield dimensions must be at least 2 in file '{file}'")));
            }
            let (nrow, ncol) = (nrow as usize, ncol as usize);
            if (bytes.len() - 8) / 4 != nrow * ncol || (bytes.len() - 8) % 4 != 0 {
                return Err(err_at(el, format!("unexpected file size in file '{file}'")));
            }
            check_dims(el, nrow, ncol, file)?;
            let data = (0..nrow * ncol).map(|k| f32::from_le_bytes(word(8 + 4 * k))).collect();
            Ok((nrow, ncol, data))
        }
    }
}

/// Decodes a PNG to one 8-bit channel per pixel, top row first: (width, height, samples).
fn decode_png(bytes: &[u8]) -> Result<(usize, usize, Vec<u8>), String> {
    use png::{BitDepth, ColorType};
    let mut opts = png::DecodeOptions::default();
    opts.set_ignore_adler32(false);
    opts.set_ignore_crc(false);
    opts.set_skip_ancillary_crc_failures(false);
    let mut decoder = png::Decoder::new_with_options(std::io::Cursor::new(bytes), opts);
    decoder.set_limits(png::Limits { bytes: usize::MAX });
    decoder.set_transformations(png::Transformations::IDENTITY);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let size = reader.output_buffer_size().ok_or("image too large")?;
    let mut buf = vec![0u8; size];
    let out = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    reader.finish().map_err(|e| e.to_string())?;
    let (width, height) = (out.width as usize, out.height as usize);
    let info = reader.info();
    let depth = match out.bit_depth {
        BitDepth::One => 1,
        BitDepth::Two => 2,
        BitDepth::Four => 4,
        BitDepth::Eight => 8,
        BitDepth::Sixteen => 16,
    };
    if out.color_type == ColorType::Indexed && info.palette.is_none() {
        return Err("a palette image without a PLTE chunk".into());
    }
    let palette = info.palette.as_deref().unwrap_or(&[]);
    // bytes per pixel of byte-aligned formats, and whether the value is a palette index
    let (samples, indexed) = match out.color_type {
        ColorType::Grayscale => (1, false),
        ColorType::GrayscaleAlpha => (2, false),
        ColorType::Rgb => (3, false),
        ColorType::Rgba => (4, false),
        ColorType::Indexed => (1, true),
    };
    let mut grey = Vec::with_capacity(width * height);
    for line in buf.chunks_exact(out.line_size).take(height) {
        for x in 0..width {
            let v = if depth < 8 {
                let bit = x * depth;
                let raw = (line[bit / 8] >> (8 - depth - bit % 8)) & ((1 << depth) - 1);
                // low-depth grey is scaled to 8 bits (the normalisation makes the scale moot)
                if indexed {
                    raw
                } else {
                    (u32::from(raw) * 255 / ((1 << depth) - 1)) as u8
                }
            } else {
                // the first sample of the pixel; of a 16-bit sample, its high byte
                line[x * samples * (depth / 8)]
            };
            grey.push(if indexed { palette.get(3 * usize::from(v)).copied().unwrap_or(0) } else { v });
        }
    }
    Ok((width, height, grey))
}

/// Fills the height-field arrays of `m`.
pub fn fill_hfield_arrays(m: &mut Model, hfields: &[HField]) {
    m.nhfield = hfields.len();
    for h in hfields {
        m.hfield_names.push(h.name.clone());
        m.hfield_size.push(h.size);
        m.hfield_nrow.push(h.nrow);
        m.hfield_ncol.push(h.ncol);
        m.hfield_adr.push(m.hfield_data.len());
        m.hfield_data.extend_from_slice(&h.data);
    }
}
