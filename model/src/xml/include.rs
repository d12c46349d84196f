//! `<include file="..."/>` expansion.
//!
//! MuJoCo's rule (src/xml/xml.cc, `IncludeXML`, read for behaviour): the include element must be
//! empty; its `file` is looked up first relative to the main model file's directory (legacy) and
//! then relative to the directory of the file that contains the include; the children of the
//! included document's root element (whatever its name) replace the include; a file may be
//! included at most once in the whole model, so both cycles and repeated includes are errors; an
//! included root with no child elements is an error ("empty include file").

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::reader::read_document;
use super::Element;
use crate::error::MjcfError;

/// Deepest merged tree the expansion walks (each file alone is limited by the reader; chains of
/// includes could stack files deeper). The schema check uses the same bound.
pub(crate) const MAX_MERGED_DEPTH: usize = 2000;

/// State of one include expansion over a whole model.
pub(crate) struct Includer {
    /// Directory of the main model file; include paths are tried against it first.
    model_dir: PathBuf,
    /// Canonical paths of every file read so far (main file included).
    included: Vec<PathBuf>,
    /// Canonical paths of the files currently being expanded, outermost first (for cycle messages).
    chain: Vec<PathBuf>,
}

impl Includer {
    /// Start an expansion for a model whose main file lives in `model_dir`.
    pub(crate) fn new(model_dir: &Path, main_file: Option<&Path>) -> Self {
        let mut includer = Includer { model_dir: model_dir.to_path_buf(), included: Vec::new(), chain: Vec::new() };
        if let Some(main) = main_file.and_then(|p| p.canonicalize().ok()) {
            includer.included.push(main.clone());
            includer.chain.push(main);
        }
        includer
    }

    /// Replace every include below `element` (a file living in `dir`) by the included elements.
    pub(crate) fn expand(&mut self, element: &mut Element, dir: &Path) -> Result<(), MjcfError> {
        self.expand_at(element, dir, 1)
    }

    /// [`Self::expand`] for an element at nesting `depth` in the merged tree.
    fn expand_at(&mut self, element: &mut Element, dir: &Path, depth: usize) -> Result<(), MjcfError> {
        if depth > MAX_MERGED_DEPTH {
            return Err(MjcfError::new(
                element.pos.clone(),
                format!("elements nested more than {MAX_MERGED_DEPTH} deep after include expansion"),
            ));
        }
        let old = std::mem::take(&mut element.children);
        element.children.reserve(old.len());
        for mut child in old {
            if child.name.eq_ignore_ascii_case("include") {
                let included = self.load(&child, dir, depth)?;
                element.children.extend(included);
            } else {
                self.expand_at(&mut child, dir, depth + 1)?;
                element.children.push(child);
            }
        }
        Ok(())
    }

    /// Read the file named by `include` and return its expanded top-level elements.
    fn load(&mut self, include: &Element, dir: &Path, depth: usize) -> Result<Vec<Element>, MjcfError> {
        if let Some(child) = include.children.first() {
            return Err(MjcfError::new(
                child.pos.clone(),
                format!("<{}> has a child <{}>; an include element must be empty", include.name, child.name),
            ));
        }
        if let Some(extra) = include.attrs.iter().find(|a| a.name != "file") {
            return Err(MjcfError::new(
                extra.pos.clone(),
                format!("unknown attribute '{}' in <include>; allowed: file", extra.name),
            ));
        }
        let file_attr = include
            .attr("file")
            .ok_or_else(|| MjcfError::new(include.pos.clone(), "<include> is missing its required attribute 'file'"))?;
        let name = file_attr.value.as_str();
        if name.is_empty() {
            return Err(MjcfError::new(file_attr.pos.clone(), "<include> has an empty 'file' attribute"));
        }
        let first = self.model_dir.join(name);
        let second = dir.join(name);
        let path = if first.is_file() {
            first
        } else if second.is_file() {
            second
        } else {
            let mut tried = format!("'{}'", first.display());
            if second != first {
                tried.push_str(&format!(" and '{}'", second.display()));
            }
            return Err(MjcfError::new(
                include.pos.clone(),
                format!("included file '{name}' not found (looked for {tried})"),
            ));
        };
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if let Some(at) = self.chain.iter().position(|p| *p == canonical) {
            let mut cycle: Vec<String> = self.chain[at..].iter().map(|p| p.display().to_string()).collect();
            cycle.push(canonical.display().to_string());
            return Err(MjcfError::new(include.pos.clone(), format!("include cycle: {}", cycle.join(" -> "))));
        }
        if self.included.contains(&canonical) {
            return Err(MjcfError::new(
                include.pos.clone(),
                format!("file '{name}' is already included; MuJoCo allows each file to be included once"),
            ));
        }
        let bytes = std::fs::read(&path).map_err(|err| {
            MjcfError::new(include.pos.clone(), format!("cannot read included file '{}': {err}", path.display()))
        })?;
        if bytes.is_empty() {
            return Err(MjcfError::new(include.pos.clone(), format!("included file '{}' is empty", path.display())));
        }
        let text = super::reader::decode(bytes);
        let mut root = read_document(&text, Arc::new(path.clone()))?;
        if root.children.is_empty() {
            return Err(MjcfError::new(
                include.pos.clone(),
                format!("included file '{}' has no elements inside its root <{}>", path.display(), root.name),
            ));
        }
        self.included.push(canonical.clone());
        self.chain.push(canonical);
        let next_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        // The included root stands in for the include's parent, one level up from its children.
        let result = self.expand_at(&mut root, &next_dir, depth);
        self.chain.pop();
        result?;
        Ok(root.children)
    }
}
