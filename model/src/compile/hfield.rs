//! Height-field assets with inline `elevation` data (MuJoCo's `mjCHField`).
//!
//! Elevations are single precision; the XML lists rows top to bottom, MuJoCo stores them
//! bottom to top, then shifts and scales the data to [0, 1] (in `f32` arithmetic).

use super::attrs::{arr, err_at, int, vec, Res};
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

/// Reads and compiles one `<hfield>` asset.
pub fn read_hfield(el: &Element) -> Res<HField> {
    let name = el.attr("name").map(|a| a.value.clone()).unwrap_or_default();
    if el.attr("file").is_some() {
        return Err(err_at(el, "height fields from files are not supported by specula yet"));
    }
    let mut size = [0.0; 4];
    if !arr(el, "size", &mut size, true)? {
        return Err(err_at(el, "required attribute missing: 'size'"));
    }
    let (mut nrow, mut ncol) = (0, 0);
    int(el, "nrow", &mut nrow)?;
    int(el, "ncol", &mut ncol)?;
    if nrow < 1 || ncol < 1 {
        return Err(err_at(el, "hfield not specified"));
    }
    let (nrow, ncol) = (nrow as usize, ncol as usize);
    let elevation = vec(el, "elevation")?;
    if elevation.as_ref().is_some_and(|e| e.len() != nrow * ncol) {
        return Err(err_at(el, "elevation data length must match nrow*ncol"));
    }
    if nrow * ncol > 1 << 28 {
        return Err(err_at(el, "height field too large"));
    }
    let mut data = vec![0f32; nrow * ncol];
    if let Some(elev) = elevation {
        for i in 0..nrow {
            let flip = nrow - 1 - i;
            for j in 0..ncol {
                data[flip * ncol + j] = elev[i * ncol + j] as f32;
            }
        }
    }
    if size.iter().any(|&s| s <= 0.0) {
        return Err(err_at(el, "size parameter is not positive in hfield"));
    }
    let mut emin = 1e10f32;
    let mut emax = -1e10f32;
    for &d in &data {
        emin = emin.min(d);
        emax = emax.max(d);
    }
    for d in data.iter_mut() {
        *d -= emin;
        if f64::from(emax - emin) > super::math::EPS {
            *d /= emax - emin;
        }
    }
    Ok(HField { name, size, nrow, ncol, data, pos: el.pos.clone() })
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
