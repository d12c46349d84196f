//! The tendon and actuator elements as the compiled model holds them after `replicate` and
//! `attach`: each written element once, or once per replica with its names suffixed, or brought
//! from an attached model with its names prefixed, in MuJoCo 4.0.0's order (the order of the name
//! lists [`super::refs`] builds). The compilers of tendons and actuators read these copies, each
//! with the default classes of the model it was written in.

use super::refs::OBJECT_REFS;
use crate::xml::Element;

/// One tendon or actuator element as compiled.
#[derive(Clone, Debug)]
pub struct Placed {
    /// The element, its `name` and references rewritten as the copy's.
    pub el: Element,
    /// Index of the model (main first, then attachable model assets) whose default classes it
    /// reads.
    pub src: usize,
    /// Whether the element is a copy made by `replicate` or `attach` (its references may name
    /// objects specula's tree does not hold under that name).
    pub copied: bool,
}

impl Placed {
    /// An element as written in the main model.
    pub fn written(el: &Element) -> Self {
        Placed { el: el.clone(), src: 0, copied: false }
    }

    /// A replica of `el`: its name and its references to objects inside the replicate (`inside`)
    /// take `suffix`.
    pub fn replica(el: &Element, suffix: &str, inside: &[String]) -> Self {
        let mut el = el.clone();
        if !suffix.is_empty() {
            rename(&mut el, &|v: &str| format!("{v}{suffix}"), &|v: &str| inside.iter().any(|n| n == v), false);
        }
        Placed { el, src: 0, copied: !suffix.is_empty() }
    }

    /// An element of attached model `src`: its name and every reference take `prefix` (all of
    /// them name the attached model's objects, which carry the prefix).
    pub fn attached(el: &Element, prefix: &str, src: usize) -> Self {
        let mut el = el.clone();
        rename(&mut el, &|v: &str| format!("{prefix}{v}"), &|_: &str| true, true);
        Placed { el, src, copied: true }
    }
}

/// Rewrites the non-empty `name` of `el` (at the top only) and, through the whole subtree, every
/// non-empty reference `refers` accepts; `material` is an asset reference, rewritten only for an
/// attached model (`assets`), whose assets carry its prefix.
fn rename(el: &mut Element, new: &dyn Fn(&str) -> String, refers: &dyn Fn(&str) -> bool, assets: bool) {
    fn walk(el: &mut Element, top: bool, new: &dyn Fn(&str) -> String, refers: &dyn Fn(&str) -> bool, assets: bool) {
        for a in el.attrs.iter_mut().filter(|a| !a.value.is_empty()) {
            let hit = if a.name == "name" {
                top
            } else if a.name == "material" {
                assets
            } else {
                OBJECT_REFS.contains(&a.name.as_str()) && refers(&a.value)
            };
            if hit {
                a.value = new(&a.value);
            }
        }
        for c in &mut el.children {
            walk(c, false, new, refers, assets);
        }
    }
    walk(el, true, new, refers, assets);
}

/// The object names `el` (and its children) refer to, as (attribute, name), materials aside.
pub fn references(el: &Element) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    fn walk<'e>(el: &'e Element, out: &mut Vec<(&'e str, &'e str)>) {
        for a in el.attrs.iter().filter(|a| OBJECT_REFS.contains(&a.name.as_str())) {
            out.push((a.name.as_str(), a.value.as_str()));
        }
        for c in &el.children {
            walk(c, out);
        }
    }
    walk(el, &mut out);
    out
}
