//! MuJoCo 4.0.0's MJCF schema, and the check of an element tree against it.
//!
//! The table (`schema_table*`) has one row per element kind *in context*: `geom` in a body and
//! `geom` in a `default` class are different rows (a default class takes the same attributes minus
//! `name`, `class` and the ones that only make sense on a concrete object), and so are the
//! `site` of a spatial tendon and the `site` of a body. Each row lists the allowed attributes with
//! the shape of their values, the presence rules between attributes, and the allowed children
//! with how often each may appear.
//!
//! Derivation: the rows were generated once from the typed schema description in MuJoCo's source
//! (`src/xml/mjcf.schema`, a snapshot slightly older than 4.0.0) by a throwaway script, then
//! corrected against MuJoCo 4.0.0 itself: every attribute named in 4.0.0's XMLreference.rst was
//! compared with the rows, and every attribute of every row was probed with
//! `mujoco.MjSpec.from_string` (valid value, one value too many, one too few, a real where an
//! int is expected, an unknown keyword). What that showed, beyond the source description:
//! - `composite` and the `flexvert` equality are gone in 4.0.0 ("Schema violation: unrecognized
//!   element"), as is the `internal` attribute of a flexcomp's `contact`.
//! - 4.0.0 adds `flag` `ipc`/`speculative`, `compiler` `savecompiled`/`savecanonical`/
//!   `passthrough`, texture `class`/`embed` (and a `texture` in default classes), body `fuse`,
//!   `springyield` on joints and tendons (fixed and spatial, and in a default class), geom
//!   `castshadow`, site and flexcomp `mesh`, frame `scale`/`scaling`/`massscale`, elasticity
//!   `shear`/`yield`/`section`/`sectionsize`, general `inheritrange`, insidesite `enclosed`, key
//!   `plastic`; a default `tendon` also takes `armature` and the actuator force limits.
//! - `worldbody` takes no attributes ("World body cannot have attributes").
//!
//! MuJoCo 4.0.0 does not schema-check `frame` and `replicate` elements or anything inside them
//! (`<frame zzq="1"><geom zzq="1"/></frame>` loads), so neither does this reader for unknown
//! attributes and repeated children there (see `check_element`).
//!
//! Value shapes follow MuJoCo's reader: numeric lists must have a count within the row's range
//! ("does not have enough data" / "has too much data"), a blank numeric value counts as absent,
//! keywords match exactly (case-sensitive), booleans are exactly `true` or `false`.

use super::include::MAX_MERGED_DEPTH as MAX_TREE_DEPTH;
use super::values::{check_count, ints_of, keyword_of, parse_real, tokens, NumberError};
use super::{Attr, Element};
use crate::error::MjcfError;

/// Count bound meaning "any number of values".
pub const MANY: u16 = u16::MAX;

/// What an attribute's value must look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Any text (names, file names, free strings).
    Text,
    /// Between `.0` and `.1` real numbers, stored by MuJoCo as `double`.
    Real(u16, u16),
    /// Between `.0` and `.1` real numbers, stored by MuJoCo as `float` (so rounded to f32, and
    /// values beyond f32's range are "too large").
    Float(u16, u16),
    /// Between `.0` and `.1` integers (C `int`).
    Int(u16, u16),
    /// Exactly `true` or `false`.
    Bool,
    /// Text of between `.0` and `.1` characters.
    Chars(u16, u16),
    /// One keyword of the list.
    Keyword(&'static [&'static str]),
    /// One or more space-separated keywords of the list.
    Keywords(&'static [&'static str]),
    /// Space-separated keywords of the list, each at most once and in the list's order (MuJoCo
    /// 4.0.0: "inputs must be listed in canonical order", "data attributes must be in order").
    OrderedKeywords(&'static [&'static str]),
}

/// One allowed attribute of an element kind.
#[derive(Clone, Copy, Debug)]
pub struct AttrSpec {
    /// Attribute name.
    pub name: &'static str,
    /// Shape of its value.
    pub kind: Kind,
    /// Whether MuJoCo requires it.
    pub required: bool,
}

impl AttrSpec {
    /// An optional attribute.
    pub const fn new(name: &'static str, kind: Kind) -> Self {
        AttrSpec { name, kind, required: false }
    }

    /// The same attribute, marked required.
    pub const fn required(self) -> Self {
        AttrSpec { required: true, ..self }
    }
}

/// How often a child kind may appear under its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Card {
    /// At most once.
    Optional,
    /// Exactly once.
    One,
    /// Any number of times.
    Many,
}

/// A presence rule between groups ("bundles") of attributes; a bundle is present when all its
/// attributes are.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// At most one bundle may be present (an attribute of two bundles counts for each).
    Exclusive(&'static [&'static [&'static str]]),
    /// All listed attributes appear together or not at all.
    Together(&'static [&'static [&'static str]]),
    /// If the first attribute appears, the others must too.
    Requires(&'static [&'static [&'static str]]),
    /// At least one bundle must be complete.
    Oneof(&'static [&'static [&'static str]]),
}

/// One element kind in context.
#[derive(Clone, Copy, Debug)]
pub struct ElementSpec {
    /// Unique row name (`geom`, `default.geom`, `spatial_site`, ...).
    pub id: &'static str,
    /// XML tag name.
    pub tag: &'static str,
    /// Allowed attributes.
    pub attrs: &'static [AttrSpec],
    /// Presence rules between attributes.
    pub rules: &'static [Rule],
    /// Allowed children: row id and cardinality.
    pub children: &'static [(&'static str, Card)],
}

impl ElementSpec {
    /// The spec of attribute `name`, if allowed.
    pub fn attr(&self, name: &str) -> Option<&'static AttrSpec> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// The row of a child with XML tag `tag`, if allowed here.
    pub fn child(&self, tag: &str) -> Option<(&'static ElementSpec, Card)> {
        self.children.iter().find_map(|&(id, card)| element(id).filter(|e| e.tag == tag).map(|e| (e, card)))
    }
}

/// The row with id `id`.
pub fn element(id: &str) -> Option<&'static ElementSpec> {
    super::schema_table::TABLES.iter().flat_map(|t| t.iter()).find(|e| e.id == id)
}

/// The row of the root element.
pub fn root() -> &'static ElementSpec {
    match element("mujoco") {
        Some(e) => e,
        None => unreachable!("the schema table always has a mujoco row"),
    }
}

/// Check a whole include-expanded tree (rooted at `<mujoco>`) against the schema.
pub(crate) fn validate(root_element: &Element) -> Result<(), MjcfError> {
    check_element(root_element, root(), 1, Reading { in_frame: false, unread: false })
}

/// How MuJoCo 4.0.0 reads the subtree being checked.
#[derive(Clone, Copy)]
struct Reading {
    /// Inside a `frame` or `replicate` (see [`check_element`]).
    in_frame: bool,
    /// Inside a `<body>` straight under `<mujoco>`, which the schema pass checks and the reader
    /// never reads: element and attribute names and how often a child appears are checked, not
    /// values, required or exclusive attributes (measured: such a body with a geom of
    /// size="a b", type="nope", both quat and euler, or an inertial without pos loads; one with
    /// a geom attribute zzz or two inertials fails).
    unread: bool,
}

/// Check one element (known to match `spec`'s tag) and its subtree. `in_frame`: the element is
/// inside a `frame` or `replicate`, where MuJoCo 4.0.0 reads the subtree without its schema
/// pass: unknown attributes are ignored and a child may repeat (measured: `<frame zzq="1">`,
/// a geom with `zzq` in a frame or replicate, and a body in a frame with two `<inertial>` load),
/// while values, required attributes, exclusive attributes and unknown elements are still
/// checked by the reader itself.
fn check_element(el: &Element, spec: &'static ElementSpec, depth: usize, how: Reading) -> Result<(), MjcfError> {
    let in_frame = how.in_frame || el.name == "frame" || el.name == "replicate";
    let unread = how.unread || (depth == 2 && el.name == "body");
    let how = Reading { in_frame, unread };
    if depth > MAX_TREE_DEPTH {
        return Err(MjcfError::new(
            el.pos.clone(),
            format!("elements nested more than {MAX_TREE_DEPTH} deep after include expansion"),
        ));
    }
    for attr in &el.attrs {
        let Some(aspec) = spec.attr(&attr.name) else {
            if in_frame {
                continue;
            }
            return Err(unknown_attribute(el, spec, attr));
        };
        if !unread {
            check_value(el, attr, aspec.kind)?;
        }
    }
    for aspec in spec.attrs.iter().filter(|a| a.required && !unread) {
        // a blank numeric value counts as absent, so it does not give a required attribute
        // (measured with 4.0.0: a fixed tendon's joint with coef="" is "required attribute missing")
        let numeric = matches!(aspec.kind, Kind::Real(..) | Kind::Float(..) | Kind::Int(..));
        let blank = |a: &Attr| numeric && a.value.trim().is_empty();
        if el.attr(aspec.name).is_none_or(blank) {
            return Err(MjcfError::new(
                el.pos.clone(),
                format!("<{}> is missing its required attribute '{}'", el.name, aspec.name),
            ));
        }
    }
    for rule in spec.rules.iter().filter(|_| !unread) {
        check_rule(el, rule)?;
    }
    let mut seen: Vec<(&str, &Element)> = Vec::new();
    // Inside a frame, MuJoCo reads the children of a body, frame or replicate and, of any other
    // element, only the ones it knows (measured: `<frame><geom><size/></geom></frame>` and a
    // `<joint>` inside such a geom load and are ignored; `<frame><foo/></frame>` fails).
    let container = matches!(el.name.as_str(), "body" | "frame" | "replicate");
    for child in &el.children {
        let Some((cspec, card)) = spec.child(&child.name) else {
            if in_frame && !container {
                continue;
            }
            return Err(unknown_element(el, spec, child));
        };
        if card != Card::Many && !in_frame {
            if let Some((_, first)) = seen.iter().find(|(id, _)| *id == cspec.id) {
                return Err(MjcfError::new(
                    child.pos.clone(),
                    format!("<{}> may appear at most once in <{}> (first at {})", child.name, el.name, first.pos),
                ));
            }
            seen.push((cspec.id, child));
        }
        check_element(child, cspec, depth + 1, how)?;
    }
    for &(id, card) in spec.children {
        if card == Card::One && !seen.iter().any(|(s, _)| *s == id) {
            let tag = element(id).map_or(id, |e| e.tag);
            return Err(MjcfError::new(el.pos.clone(), format!("<{}> must contain one <{tag}>", el.name)));
        }
    }
    Ok(())
}

/// Check the text of `attr` (on `el`) against `kind`.
fn check_value(el: &Element, attr: &Attr, kind: Kind) -> Result<(), MjcfError> {
    match kind {
        Kind::Text => Ok(()),
        Kind::Real(min, max) | Kind::Float(min, max) => {
            let single = matches!(kind, Kind::Float(..));
            let mut n = 0;
            for (i, t) in tokens(&attr.value).enumerate() {
                let v = parse_real(t).and_then(|v| {
                    // strtof reports a finite value beyond float's range as overflow.
                    if single && v.is_finite() && (v as f32).is_infinite() {
                        Err(NumberError::TooLarge)
                    } else {
                        Ok(v)
                    }
                });
                if let Err(err) = v {
                    let what = match err {
                        NumberError::BadFormat => "is not a real number",
                        NumberError::TooLarge => "is too large",
                    };
                    return Err(MjcfError::new(
                        attr.pos.clone(),
                        format!("attribute '{}' of <{}>: value {} '{t}' {what}", attr.name, el.name, i + 1),
                    ));
                }
                n += 1;
            }
            count(el, attr, n, min, max, "real numbers")
        }
        Kind::Int(min, max) => {
            let n = ints_of(attr, &el.name)?.len();
            count(el, attr, n, min, max, "integers")
        }
        Kind::Bool => keyword_of(attr, &el.name, &["true", "false"]).map(|_| ()),
        Kind::Keyword(words) => keyword_of(attr, &el.name, words).map(|_| ()),
        Kind::Keywords(words) | Kind::OrderedKeywords(words) => {
            let ordered = matches!(kind, Kind::OrderedKeywords(_));
            let mut last: Option<usize> = None;
            for word in tokens(&attr.value) {
                let Some(at) = words.iter().position(|w| *w == word) else {
                    return Err(MjcfError::new(
                        attr.pos.clone(),
                        format!(
                            "attribute '{}' of <{}>: invalid keyword '{word}'; expected any of: {}",
                            attr.name,
                            el.name,
                            words.join(", ")
                        ),
                    ));
                };
                if ordered && last.is_some_and(|l| at <= l) {
                    return Err(MjcfError::new(
                        attr.pos.clone(),
                        format!(
                            "attribute '{}' of <{}>: keyword '{word}' out of order; list each at most once, in the order {}",
                            attr.name,
                            el.name,
                            words.join(", ")
                        ),
                    ));
                }
                last = Some(at);
            }
            Ok(())
        }
        Kind::Chars(min, max) => {
            // MuJoCo counts bytes (measured with 4.0.0: `eulerseq` "x\u{e9}" has 3, `xy\xff` too)
            let n = attr.raw_len();
            if n < usize::from(min) || n > usize::from(max) {
                let expected = match (min, max) {
                    (a, b) if a == b => format!("exactly {a}"),
                    (0, b) => format!("at most {b}"),
                    (a, b) => format!("{a} to {b}"),
                };
                return Err(MjcfError::new(
                    attr.pos.clone(),
                    format!("attribute '{}' of <{}>: expected {expected} characters, found {n}", attr.name, el.name),
                ));
            }
            Ok(())
        }
    }
}

/// The count check for numeric lists; blank values count as absent, as in MuJoCo.
fn count(el: &Element, attr: &Attr, n: usize, min: u16, max: u16, what: &str) -> Result<(), MjcfError> {
    if n == 0 {
        return Ok(());
    }
    let max = (max != MANY).then_some(usize::from(max));
    check_count(attr, &el.name, n, usize::from(min), max, what)
}

/// Check one presence rule on `el`.
fn check_rule(el: &Element, rule: &Rule) -> Result<(), MjcfError> {
    let has = |name: &str| el.attr(name).is_some();
    let bundle_present = |b: &[&str]| b.iter().all(|n| has(n));
    let bundle_touched = |b: &[&str]| b.iter().any(|n| has(n));
    let show = |bundles: &[&[&str]]| {
        bundles
            .iter()
            .map(|b| b.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join("+"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match *rule {
        Rule::Exclusive(bundles) => {
            if bundles.iter().filter(|b| bundle_touched(b)).count() > 1 {
                let at =
                    bundles.iter().filter(|b| bundle_touched(b)).nth(1).and_then(|b| b.iter().find_map(|n| el.attr(n)));
                let pos = at.map_or_else(|| el.pos.clone(), |a| a.pos.clone());
                return Err(MjcfError::new(
                    pos,
                    format!("<{}>: at most one of {} can be specified", el.name, show(bundles)),
                ));
            }
        }
        Rule::Together(bundles) => {
            let names: Vec<&str> = bundles.iter().flat_map(|b| b.iter().copied()).collect();
            let given = names.iter().filter(|n| has(n)).count();
            if given != 0 && given != names.len() {
                return Err(MjcfError::new(
                    el.pos.clone(),
                    format!("<{}>: attributes {} must be specified together", el.name, show(bundles)),
                ));
            }
        }
        Rule::Requires(bundles) => {
            let names: Vec<&str> = bundles.iter().flat_map(|b| b.iter().copied()).collect();
            if let Some((first, rest)) = names.split_first() {
                if has(first) {
                    if let Some(missing) = rest.iter().find(|n| !has(n)) {
                        return Err(MjcfError::new(
                            el.pos.clone(),
                            format!("<{}>: attribute '{first}' requires '{missing}'", el.name),
                        ));
                    }
                }
            }
        }
        Rule::Oneof(bundles) => {
            if !bundles.iter().any(|b| bundle_present(b)) {
                return Err(MjcfError::new(
                    el.pos.clone(),
                    format!("<{}>: one of {} must be specified", el.name, show(bundles)),
                ));
            }
        }
    }
    Ok(())
}

/// The error for an attribute the row does not allow, with a close match or the allowed list.
fn unknown_attribute(el: &Element, spec: &ElementSpec, attr: &Attr) -> MjcfError {
    let names: Vec<&str> = spec.attrs.iter().map(|a| a.name).collect();
    let hint = if names.is_empty() {
        format!("<{}> takes no attributes", el.name)
    } else if let Some(close) = closest(&attr.name, &names) {
        format!("did you mean '{close}'? allowed: {}", names.join(", "))
    } else {
        format!("allowed: {}", names.join(", "))
    };
    MjcfError::new(attr.pos.clone(), format!("unknown attribute '{}' in <{}>; {hint}", attr.name, el.name))
}

/// The error for a child element the row does not allow.
fn unknown_element(parent: &Element, spec: &ElementSpec, child: &Element) -> MjcfError {
    let tags: Vec<&str> = spec.children.iter().filter_map(|(id, _)| element(id).map(|e| e.tag)).collect();
    let hint = if tags.is_empty() {
        format!("<{}> takes no child elements", parent.name)
    } else if let Some(close) = closest(&child.name, &tags) {
        format!("did you mean <{close}>? allowed: {}", tags.join(", "))
    } else {
        format!("allowed: {}", tags.join(", "))
    };
    MjcfError::new(child.pos.clone(), format!("unknown element <{}> in <{}>; {hint}", child.name, parent.name))
}

/// The candidate within edit distance 2 of `word` (the closest, first on ties), if any.
fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= 2 && *d < word.chars().count().max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance between two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut diag = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let up = row[j];
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (diag + cost).min(row[j - 1] + 1).min(up + 1);
            diag = up;
        }
    }
    row[b.len()]
}
