//! The MJCF reader: XML text to an element tree that keeps every position.
//!
//! `include` elements are resolved here (the included file's top-level children take the place of
//! the `include`, keeping their own file positions); every element and attribute is checked
//! against MuJoCo's MJCF schema ([`schema`]), including the syntax of its value (numbers, counts,
//! keywords), so the compiler can use the typed accessors in [`values`] knowing the text is valid.

mod include;
mod reader;
pub mod schema;
mod schema_table;
pub mod values;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{MjcfError, Position};

/// One attribute, with the position of its name in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// Attribute name as written.
    pub name: String,
    /// Attribute value with XML entities resolved.
    pub value: String,
    /// Where the attribute's name starts.
    pub pos: Position,
}

impl Attr {
    /// The value as the bytes of the file (a byte that is not UTF-8 counts as one, as in MuJoCo).
    pub fn raw_bytes(&self) -> Vec<u8> {
        reader::raw_bytes(&self.value)
    }

    /// The length of the value in bytes of the file, MuJoCo's measure of a string attribute.
    pub fn raw_len(&self) -> usize {
        self.raw_bytes().len()
    }
}

/// One MJCF element and its subtree.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// Element name (`body`, `geom`, ...).
    pub name: String,
    /// Attributes in file order.
    pub attrs: Vec<Attr>,
    /// Child elements in file order (includes already expanded).
    pub children: Vec<Element>,
    /// Where the element's `<` is.
    pub pos: Position,
    /// Character data inside the element, entities resolved and surrounding whitespace trimmed
    /// (empty for almost every MJCF element).
    pub text: String,
    /// How many CDATA sections the element holds (MuJoCo's custom `text` takes its data only
    /// from one).
    pub cdata: usize,
}

impl Element {
    /// The attribute named `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// The children named `name`, in file order.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// Read, include-expand and schema-check the MJCF file at `path`.
pub fn parse_file(path: &Path) -> Result<Element, MjcfError> {
    let file = Arc::new(path.to_path_buf());
    let whole_file = Position { file: file.clone(), line: 0, col: 0 };
    let bytes =
        std::fs::read(path).map_err(|err| MjcfError::new(whole_file, format!("cannot read MJCF file: {err}")))?;
    let text = reader::decode(bytes);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse_text(&text, &dir, file, Some(path))
}

/// Read, include-expand and schema-check MJCF text; `base_dir` resolves includes, `name` labels
/// positions (e.g. `<string>` or the file name the text came from).
pub fn parse_str(xml: &str, base_dir: &Path, name: &str) -> Result<Element, MjcfError> {
    parse_text(xml, base_dir, Arc::new(PathBuf::from(name)), None)
}

/// Read and include-expand an MJCF file without the schema check: the tree as written, for a
/// scan that must see elements whatever else is wrong with the file (specula's refusal of
/// inputs MuJoCo crashes on runs before MuJoCo, on files either compiler may reject).
pub fn read_unchecked(path: &Path) -> Result<Element, MjcfError> {
    let file = Arc::new(path.to_path_buf());
    let whole_file = Position { file: file.clone(), line: 0, col: 0 };
    let bytes =
        std::fs::read(path).map_err(|err| MjcfError::new(whole_file, format!("cannot read MJCF file: {err}")))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    read_unchecked_text(&reader::decode(bytes), &dir, file, Some(path))
}

/// [`read_unchecked`] for MJCF text (`name` labels positions).
pub fn read_unchecked_str(xml: &str, base_dir: &Path, name: &str) -> Result<Element, MjcfError> {
    read_unchecked_text(xml, base_dir, Arc::new(PathBuf::from(name)), None)
}

fn read_unchecked_text(text: &str, dir: &Path, file: Arc<PathBuf>, main: Option<&Path>) -> Result<Element, MjcfError> {
    let mut root = reader::read_document(text, file)?;
    include::Includer::new(dir, main).expand(&mut root, dir)?;
    Ok(root)
}

/// The shared body of [`parse_file`] and [`parse_str`].
fn parse_text(text: &str, dir: &Path, file: Arc<PathBuf>, main: Option<&Path>) -> Result<Element, MjcfError> {
    let mut root = reader::read_document(text, file)?;
    if root.name != "mujoco" {
        let hint = if root.name.eq_ignore_ascii_case("robot") { " (URDF files are not supported)" } else { "" };
        return Err(MjcfError::new(
            root.pos.clone(),
            format!("root element is <{}>; expected <mujoco>{hint}", root.name),
        ));
    }
    include::Includer::new(dir, main).expand(&mut root, dir)?;
    schema::validate(&root)?;
    Ok(root)
}
