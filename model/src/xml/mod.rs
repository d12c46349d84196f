//! The MJCF reader: XML text to an element tree that keeps every position.
//!
//! `include` elements are resolved here (the included file's top-level children take the place of
//! the `include`, keeping their own file positions); every element and attribute is checked
//! against MuJoCo's MJCF schema.

use crate::error::Position;

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
}

impl Element {
    /// The attribute named `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }
}
