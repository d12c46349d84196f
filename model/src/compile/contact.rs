//! Explicit contact `pair`s and body-pair `exclude`s.
//!
//! In MuJoCo 4.0 an unspecified pair attribute takes the pair default class's value (condim 3,
//! friction 1 1 0.005 0.0001 0.0001, default solref/solimp, margin and gap 0), not a mix of the
//! two geoms' values: measured with `MjModel.from_xml_string` on a pair between geoms with
//! margin 0.3/0.1, priority 1/0 and custom friction, which compiled to pair_margin 0 and
//! pair_friction [1, 1, 0.005, 1e-4, 1e-4].

use super::attrs::{err_at, Res};
use super::spec::{Defaults, PairSpec};
use crate::error::Position;
use crate::xml::Element;

/// A pair as read, before its geom names are resolved.
#[derive(Clone, Debug)]
pub struct RawPair {
    /// Pair name.
    pub name: String,
    /// First geom name and the attribute position.
    pub geom1: (String, Position),
    /// Second geom name and the attribute position.
    pub geom2: (String, Position),
    /// Values.
    pub spec: PairSpec,
    /// Element position.
    pub pos: Position,
}

/// An exclude as read.
#[derive(Clone, Debug)]
pub struct RawExclude {
    /// Exclude name.
    pub name: String,
    /// First body name and the attribute position.
    pub body1: (String, Position),
    /// Second body name and the attribute position.
    pub body2: (String, Position),
}

fn required(el: &Element, name: &str) -> Res<(String, Position)> {
    match el.attr(name) {
        Some(a) => Ok((a.value.clone(), a.pos.clone())),
        None => Err(err_at(el, format!("required attribute missing: '{name}'"))),
    }
}

fn optional(el: &Element, name: &str) -> (String, Position) {
    el.attr(name).map_or_else(|| (String::new(), el.pos.clone()), |a| (a.value.clone(), a.pos.clone()))
}

/// Reads a `contact` section.
pub fn read_contact(
    el: &Element,
    defaults: &Defaults,
    pairs: &mut Vec<RawPair>,
    excl: &mut Vec<RawExclude>,
) -> Res<()> {
    for c in &el.children {
        let class = defaults.class_of(c, 0)?;
        let name = c.attr("name").map(|a| a.value.clone()).unwrap_or_default();
        match c.name.as_str() {
            "pair" => {
                let mut spec = defaults.classes[class].pair.clone();
                spec.read(c)?;
                if ![1, 3, 4, 6].contains(&spec.condim) {
                    return Err(err_at(c, "invalid condim in contact pair"));
                }
                pairs.push(RawPair {
                    name,
                    // not required: an absent geom is the name '', which MuJoCo looks up like
                    // any other (measured: <pair/> beside one unnamed geom pairs it with itself)
                    geom1: optional(c, "geom1"),
                    geom2: optional(c, "geom2"),
                    spec,
                    pos: c.pos.clone(),
                });
            }
            "exclude" => excl.push(RawExclude { name, body1: required(c, "body1")?, body2: required(c, "body2")? }),
            _ => {}
        }
    }
    Ok(())
}
