//! Texture assets: specula does not build texture images (they matter only to rendering), but
//! MuJoCo 4.0.0's compiler refuses a texture it cannot build, so the same textures are refused
//! here. Rules measured with probe files (`model/tests/verdict_cases/`):
//! - a texture other than the skybox needs a name; one read from a single `file` is named after that file;
//! - a builtin texture needs `width` > 0, a 2-D one also `height` > 0 (a cube or skybox ignores
//!   `height`), and 3 channels; a cube's width and a 2-D image's byte count have upper limits;
//! - without a builtin, a 2-D texture needs `file`, a cube or skybox `file` or one of the six
//!   face files; every file named must exist (looked up under `texturedir`).
//!
//! Not reproduced: MuJoCo also fails when the builtin image does not fit in memory ("Could not
//! allocate memory for texture"), which depends on the machine (4.0.0 built a 1e9 x 2 texture of
//! 6 GB on a 23 GB machine and failed on 1e5 x 1e5).

use std::path::Path;

use super::attrs::{err_at, err_attr, Res};
use super::spec::Defaults;
use crate::xml::Element;

/// The six face files of a cube or skybox texture.
const CUBE_FILES: [&str; 6] = ["fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"];

/// Checks every texture of the main document `root` (and the texture defaults of its classes
/// `defs`); files resolve against `dir`.
pub fn check_textures(root: &Element, defs: &Defaults, dir: &Path, texturedir: &str) -> Res<()> {
    for s in root.children.iter().filter(|c| c.name == "default") {
        check_default_layouts(s, None)?;
    }
    for s in root.children.iter().filter(|c| c.name == "asset") {
        for t in s.children.iter().filter(|c| c.name == "texture") {
            let class = defs.class_of(t, 0)?;
            let inherited = defs.classes[class].raw_attr("texture", "gridsize").filter(|g| !g.trim().is_empty());
            check_texture(t, inherited, &dir.join(texturedir))?;
        }
    }
    Ok(())
}

/// The grid of a cube texture: `gridsize` as written, else as its class gives it, else 1 x 1.
fn grid_of(own: Option<&str>, inherited: Option<&str>) -> (i64, i64) {
    let grid: Vec<i64> = own
        .or(inherited)
        .map(|g| g.split_ascii_whitespace().filter_map(|t| t.parse().ok()).collect())
        .unwrap_or_default();
    (grid.first().copied().unwrap_or(1), grid.get(1).copied().unwrap_or(1))
}

/// MuJoCo reads `gridlayout` wherever it is written, in a default class too, and compares its
/// length in bytes with the product of the grid counts in effect there (its own `gridsize`,
/// else the class's), whatever the signs, a product that does not wrap around (measured with
/// 4.0.0: "-1 -1" with "A" loads; "0 4" with "" loads; "1 1" with "" or " A" is refused, and so
/// are "641 6700417" (2^32 + 1) with "A" and "65536 65536" with ""; a 12-cell layout holding a
/// `\xff` byte loads; a default class's layout that does not match its grid is refused even if
/// no texture uses it; a texture's layout is measured against the grid its class gives).
fn check_layout(t: &Element, grid: (i64, i64)) -> Res<()> {
    let Some(layout) = t.attr("gridlayout") else { return Ok(()) };
    if grid.0.saturating_mul(grid.1) != layout.raw_len() as i64 {
        return Err(err_attr(layout, "gridlayout length must match gridsize"));
    }
    Ok(())
}

/// The layout check of the `texture` defaults in class `d` and the classes nested in it;
/// `inherited` is the `gridsize` the parent class holds.
fn check_default_layouts(d: &Element, inherited: Option<&str>) -> Res<()> {
    let mut grid = inherited;
    for t in d.children.iter().filter(|c| c.name == "texture") {
        let own = t.attr("gridsize").map(|a| a.value.as_str()).filter(|g| !g.trim().is_empty());
        check_layout(t, grid_of(own, grid))?;
        grid = own.or(grid);
    }
    for c in d.children.iter().filter(|c| c.name == "default") {
        check_default_layouts(c, grid)?;
    }
    Ok(())
}

/// The checks of one `texture` element; `inherited` is the `gridsize` its class gives.
fn check_texture(t: &Element, inherited: Option<&str>, dir: &Path) -> Res<()> {
    let text = |name: &str| t.attr(name).map(|a| a.value.trim()).filter(|v| !v.is_empty());
    let int = |name: &str| text(name).and_then(|v| v.parse::<i64>().ok());
    // The renderer finds the skybox by its type, so it alone may go without a name.
    let named = text("name").is_some() || text("file").is_some() || text("type") == Some("skybox");
    if !named {
        return Err(err_at(t, "empty name in texture: give 'name' (or 'file', which names it)"));
    }
    let (r, c) = grid_of(text("gridsize"), inherited);
    check_layout(t, (r, c))?;
    let two_d = text("type") == Some("2d");
    let builtin = text("builtin").filter(|b| *b != "none");
    if builtin.is_some() {
        let width = int("width").unwrap_or(0);
        // A cube or skybox is six squares stacked in one image of int height: 4.0.0 refuses a
        // width of i32::MAX / 6 = 357913941 or more (measured: 357913940 is only too big for
        // memory, 357913941 "Invalid width").
        let cube_limit = i64::from(i32::MAX) / 6;
        if width <= 0 || (!two_d && width >= cube_limit) {
            return Err(err_at(
                t,
                "Invalid width of builtin texture: 'width' must be positive (below 357913941 for a cube)",
            ));
        }
        let height = int("height").unwrap_or(0);
        if two_d && height <= 0 {
            return Err(err_at(t, "Invalid height of builtin texture: 'height' must be positive"));
        }
        // The byte count of a 2-D image must fit in i64 (measured: 2e9 x 1.5e9 only runs out of
        // memory, 2e9 x 1.6e9 is "Builtin texture too large"; i64::MAX / 3 lies between).
        if two_d && i128::from(width) * i128::from(height) * 3 > i128::from(i64::MAX) {
            return Err(err_at(t, "Builtin texture too large: width x height x 3 bytes exceeds 2^63"));
        }
        if let Some(why) = builtin_too_large(t) {
            return Err(err_at(t, why));
        }
        if int("nchannel").unwrap_or(3) != 3 {
            let a = t.attr("nchannel").map_or_else(|| t.pos.clone(), |a| a.pos.clone());
            return Err(crate::error::MjcfError::new(a, "builtin textures must have 3 channels"));
        }
        return Ok(());
    }
    let files: Vec<&str> = if text("file").is_some() {
        vec!["file"]
    } else {
        CUBE_FILES.iter().copied().filter(|f| text(f).is_some()).collect()
    };
    if two_d && text("file").is_none() {
        return Err(err_at(t, "Cannot load 2D texture from separate files: a 2-D texture needs 'file' or 'builtin'"));
    }
    if files.is_empty() {
        return Err(err_at(
            t,
            "No cubefiles_ defined in cube or skybox texture: give 'file', a face file or 'builtin'",
        ));
    }
    // A cube or skybox from one file is cut into a grid of at most 12 squares; 4.0.0 checks the
    // grid before it opens the file (measured: gridsize "-3 -4", "0 4" and "13 1" fail, with or
    // without the file; a builtin cube ignores gridsize).
    if !two_d && text("file").is_some() && (r <= 0 || c <= 0 || r.saturating_mul(c) > 12) {
        let pos = t.attr("gridsize").map_or_else(|| t.pos.clone(), |a| a.pos.clone());
        return Err(crate::error::MjcfError::new(
            pos,
            "gridsize must be non-zero and no more than 12 squares in texture (both counts positive)",
        ));
    }
    for f in files {
        if let Some(a) = t.attr(f) {
            if !dir.join(&a.value).is_file() {
                return Err(err_attr(a, format!("Error opening file '{}' (texture file not found)", a.value)));
            }
        }
    }
    Ok(())
}

/// The most bytes of a builtin texture: specula's own limit, 1 GiB. MuJoCo 4.0.0 allocates
/// the image and fails when memory runs out ("Could not allocate memory for texture", which
/// depends on the machine: a 1e9 x 2 image took 17 GB here, a 100000-wide cube failed under an
/// 8 GiB cap), and below that takes long (a 1e9 x 1 gradient, 3 GB: 17 s, and `check` holds it
/// twice); specula refuses larger ones in both compilers, before MuJoCo sees the file.
pub const MAX_BUILTIN_TEXTURE_BYTES: u128 = 1 << 30;

/// Why the builtin texture `t` is beyond [`MAX_BUILTIN_TEXTURE_BYTES`], if it is (3 bytes a
/// pixel; a cube or skybox, the default type, is six squares of `width`).
pub fn builtin_too_large(t: &Element) -> Option<String> {
    let text = |name: &str| t.attr(name).map(|a| a.value.trim()).filter(|v| !v.is_empty());
    text("builtin").filter(|b| *b != "none")?;
    let int = |name: &str| text(name).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0).max(0) as u128;
    let (width, height) = (int("width"), int("height"));
    let pixels = if text("type") == Some("2d") { width * height } else { 6 * width * width };
    let bytes = pixels * 3;
    (bytes > MAX_BUILTIN_TEXTURE_BYTES).then(|| {
        format!(
            "builtin texture of {bytes} bytes; specula refuses builtin textures above {MAX_BUILTIN_TEXTURE_BYTES} bytes \
             (MuJoCo allocates them and runs out of memory)"
        )
    })
}
