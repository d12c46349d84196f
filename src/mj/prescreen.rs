//! Inputs on which MuJoCo 4.0.0 crashes or hangs instead of reporting an error, refused before
//! it sees them.
//!
//! The C++ exception boundary (`boundary.rs`) turns MuJoCo's exceptions into errors, but some
//! inputs make the library write out of bounds, which nothing can catch afterwards. The one known:
//! a height field whose `nrow * ncol` does not fit MuJoCo's 32-bit `int`. Its XML reader sizes the
//! sample buffer with the wrapped product and then fills the full grid (measured: 65536 x 65536
//! wraps to 0 and segfaults in `mjXReader::Parse`; 100000 x 100000 wraps to 1.41e9, allocates
//! 5.6 GB and segfaults in `mjCHField::Compile`'s memcpy, or throws `std::bad_alloc` where memory
//! is short). `nhfielddata` is an `int` too, so the sum over all height fields has the same limit.

use std::path::Path;

use specula_model::mesh::{builtin, Builtin, MeshError};
use specula_model::xml::{self, Element};

use super::error::MjError;

/// The most height-field samples MuJoCo 4.0.0 can count (`INT_MAX`), per field and in all.
const HFIELD_MAX_SAMPLES: i64 = i32::MAX as i64;

/// Where the MJCF comes from.
pub(crate) enum Source<'a> {
    /// A file on disk (its includes relative to it).
    Path(&'a Path),
    /// Text in memory (includes relative to the current directory).
    Text(&'a str),
}

/// Refuses the MJCF if MuJoCo would crash on it; `Ok` when it is safe to hand over, or when
/// specula's reader cannot read it (then MuJoCo's own verdict is the one to report).
pub(crate) fn check(source: Source, file: &str) -> Result<(), MjError> {
    // Only height fields with an explicit grid, builtin meshes and replicates are dangerous: skip the second
    // reading of the file (and its includes) when the text can hold none.
    let text = match &source {
        Source::Path(p) => match std::fs::read(p) {
            Ok(bytes) => bytes,
            Err(_) => return Ok(()),
        },
        Source::Text(t) => t.as_bytes().to_vec(),
    };
    if ["nrow", "include", "builtin", "replicate"].iter().all(|w| !contains(&text, w.as_bytes())) {
        return Ok(());
    }
    // The tree as written, without the schema check: a file specula's compiler rejects for
    // another reason may still crash MuJoCo (a 65536 x 65536 height field beside a geom size
    // of "1,2,3": fuzz --mutate seed 76379).
    let root = match source {
        Source::Path(p) => xml::read_unchecked(p),
        Source::Text(t) => xml::read_unchecked_str(t, Path::new("."), file),
    };
    let Ok(root) = root else { return Ok(()) };
    let mut total = 0i64;
    check_hfields(&root, &mut total).map_err(MjError::Invalid)?;
    specula_model::compile::tree::check_replicate_copies(&root)
        .map_err(|e| MjError::Invalid(format!("{e} (refused before MuJoCo C sees it)")))?;
    check_builtins(&root).map_err(MjError::Invalid)
}

/// Walks the tree for builtin meshes and textures beyond specula's size limits
/// (`specula_model::mesh::builtin`, `specula_model::compile::texture`), which MuJoCo 4.0.0
/// takes minutes on or runs out of memory for (a 5000 x 5000 wedge: no answer in 30 s, found
/// by `specula fuzz --mutate`, seed 98; a 100000-wide cube texture). Other parameter errors are
/// left to MuJoCo's own message.
fn check_builtins(el: &Element) -> Result<(), String> {
    if el.name == "mesh" {
        if let Some(kind) = el.attr("builtin").and_then(|a| Builtin::from_keyword(a.value.trim())) {
            let params: Option<Vec<f64>> = el
                .attr("params")
                .map_or(Some(Vec::new()), |a| a.value.split_whitespace().map(|t| t.parse().ok()).collect());
            if let Some(params) = params {
                if let Err(MeshError::TooLarge(why)) = builtin::check(kind, &params) {
                    return Err(format!("{}: {why} (refused before MuJoCo C sees it, which takes minutes on such a mesh or runs out of memory)", el.pos));
                }
            }
        }
    }
    if el.name == "texture" {
        if let Some(why) = specula_model::compile::texture::builtin_too_large(el) {
            return Err(format!("{}: {why} (refused before MuJoCo C sees it)", el.pos));
        }
    }
    el.children.iter().try_for_each(check_builtins)
}

/// Walks the tree for `<hfield nrow ncol>` and checks their sample counts.
fn check_hfields(el: &Element, total: &mut i64) -> Result<(), String> {
    if el.name == "hfield" {
        let int = |name: &str| el.attr(name).and_then(|a| a.value.trim().parse::<i64>().ok()).unwrap_or(0);
        let (nrow, ncol) = (int("nrow"), int("ncol"));
        if nrow > 0 && ncol > 0 {
            let samples = nrow.saturating_mul(ncol);
            *total = total.saturating_add(samples);
            if *total > HFIELD_MAX_SAMPLES {
                let count = if samples > HFIELD_MAX_SAMPLES {
                    format!("{samples} samples")
                } else {
                    format!("{samples} samples, {} in all height fields so far", *total)
                };
                return Err(format!(
                    "{}: hfield nrow x ncol = {nrow} x {ncol} = {count}; MuJoCo 4.0.0 counts height-field \
                     samples in a 32-bit int and crashes beyond {HFIELD_MAX_SAMPLES}",
                    el.pos
                ));
            }
        }
    }
    el.children.iter().try_for_each(|c| check_hfields(c, total))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
