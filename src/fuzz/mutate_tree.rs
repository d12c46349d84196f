//! The mutation fuzzer's view of an MJCF file: a tolerant element tree that keeps everything it
//! does not change byte for byte (text, comments, the declaration, attribute values as written),
//! and the mutations drawn on it.
//!
//! The tree is built with quick-xml, which only has to read the *base* files; the mutations may
//! then write what no parser accepts (a duplicated attribute, non-UTF-8 bytes in a value, and, in
//! [`ByteOp`], a truncated file or an unclosed tag), since the compilers' answers to bad input are
//! what the fuzzer tests.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::scene::Rng;

/// An element: its name, its attributes (values as written in the file, escaped) and children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// The tag name.
    pub name: Vec<u8>,
    /// Attribute names and raw (escaped) values, in file order; a name may repeat.
    pub attrs: Vec<(Vec<u8>, Vec<u8>)>,
    /// Child nodes in order.
    pub children: Vec<Node>,
}

/// A child of an element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A nested element.
    Element(Element),
    /// Text, a comment, CDATA or a processing instruction, exactly as written.
    Raw(Vec<u8>),
}

/// A parsed file: what comes before the root element, the root, and what follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    /// Bytes before the root element (declaration, comments, whitespace).
    pub before: Vec<u8>,
    /// The root element (`<mujoco>` in an MJCF file).
    pub root: Element,
    /// Bytes after the root element.
    pub after: Vec<u8>,
}

fn element_of(e: &BytesStart) -> Option<Element> {
    let mut attrs = Vec::new();
    for a in e.attributes().with_checks(false) {
        let a = a.ok()?;
        attrs.push((a.key.as_ref().to_vec(), a.value.into_owned()));
    }
    Some(Element { name: e.name().as_ref().to_vec(), attrs, children: Vec::new() })
}

/// Parses a well-formed file with one root element; `None` for anything else (such a base is
/// mutated at the byte level only).
pub fn parse(bytes: &[u8]) -> Option<Doc> {
    let mut reader = Reader::from_reader(bytes);
    let mut stack: Vec<Element> = Vec::new();
    let (mut before, mut after, mut root) = (Vec::new(), Vec::new(), None::<Element>);
    let mut start = 0usize;
    loop {
        let ev = reader.read_event().ok()?;
        let end = usize::try_from(reader.buffer_position()).ok()?;
        let span = bytes.get(start..end)?.to_vec();
        start = end;
        let node = match ev {
            Event::Eof => break,
            Event::Start(e) => {
                stack.push(element_of(&e)?);
                continue;
            }
            Event::Empty(e) => Node::Element(element_of(&e)?),
            Event::End(_) => Node::Element(stack.pop()?),
            _ => Node::Raw(span),
        };
        match (stack.last_mut(), node) {
            (Some(parent), node) => parent.children.push(node),
            (None, Node::Element(el)) if root.is_none() => root = Some(el),
            (None, Node::Element(_)) => return None,
            (None, Node::Raw(raw)) => (if root.is_none() { &mut before } else { &mut after }).extend(raw),
        }
    }
    if !stack.is_empty() {
        return None;
    }
    Some(Doc { before, root: root?, after })
}

fn write_element(el: &Element, out: &mut Vec<u8>) {
    out.push(b'<');
    out.extend(&el.name);
    for (k, v) in &el.attrs {
        // a value read from a single-quoted attribute may hold a double quote
        let q = if v.contains(&b'"') { b'\'' } else { b'"' };
        out.push(b' ');
        out.extend(k);
        out.push(b'=');
        out.push(q);
        out.extend(v);
        out.push(q);
    }
    if el.children.is_empty() {
        out.extend(b"/>");
        return;
    }
    out.push(b'>');
    for c in &el.children {
        match c {
            Node::Element(e) => write_element(e, out),
            Node::Raw(r) => out.extend(r),
        }
    }
    out.extend(b"</");
    out.extend(&el.name);
    out.push(b'>');
}

impl Doc {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.before.clone();
        write_element(&self.root, &mut out);
        out.extend(&self.after);
        out
    }

    /// Paths (child indices from the root) of every element, root (the empty path) first, in
    /// document order.
    pub fn paths(&self) -> Vec<Vec<usize>> {
        fn walk(el: &Element, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            out.push(path.clone());
            for (i, c) in el.children.iter().enumerate() {
                if let Node::Element(e) = c {
                    path.push(i);
                    walk(e, path, out);
                    path.pop();
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut Vec::new(), &mut out);
        out
    }

    /// The element at `path`.
    pub fn get(&self, path: &[usize]) -> Option<&Element> {
        let mut el = &self.root;
        for &i in path {
            match el.children.get(i)? {
                Node::Element(e) => el = e,
                Node::Raw(_) => return None,
            }
        }
        Some(el)
    }

    /// The element at `path`, to change.
    pub fn get_mut(&mut self, path: &[usize]) -> Option<&mut Element> {
        let mut el = &mut self.root;
        for &i in path {
            match el.children.get_mut(i)? {
                Node::Element(e) => el = e,
                Node::Raw(_) => return None,
            }
        }
        Some(el)
    }

    /// Removes the element at `path` (not the root) and returns it.
    pub fn remove(&mut self, path: &[usize]) -> Option<Element> {
        let (&last, parent) = path.split_last()?;
        let p = self.get_mut(parent)?;
        if !matches!(p.children.get(last), Some(Node::Element(_))) {
            return None;
        }
        match p.children.remove(last) {
            Node::Element(e) => Some(e),
            Node::Raw(_) => None,
        }
    }

    /// Every `name` attribute's value, in document order.
    fn names(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for p in self.paths() {
            if let Some(el) = self.get(&p) {
                out.extend(el.attrs.iter().filter(|(k, _)| k == b"name").map(|(_, v)| v.clone()));
            }
        }
        out
    }

    /// The path of the first element named `name` among the root's children, created (at the
    /// front, or the back) if missing.
    fn section(&mut self, name: &[u8], front: bool) -> Vec<usize> {
        if let Some(i) = self.root.children.iter().position(|c| matches!(c, Node::Element(e) if e.name == name)) {
            return vec![i];
        }
        let el = Element { name: name.to_vec(), attrs: Vec::new(), children: Vec::new() };
        if front {
            self.root.children.insert(0, Node::Element(el));
            vec![0]
        } else {
            self.root.children.push(Node::Element(el));
            vec![self.root.children.len() - 1]
        }
    }
}

/// Escapes a value written by a mutation (the bytes of base files are kept as written).
fn escape(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    for &b in v {
        match b {
            b'"' => out.extend(b"&quot;"),
            b'&' => out.extend(b"&amp;"),
            b'<' => out.extend(b"&lt;"),
            _ => out.push(b),
        }
    }
    out
}

/// Values that break numbers, counts, keywords and references.
const SPECIAL: &[&str] = &[
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e309",
    "0",
    "-0",
    "-1",
    "2147483647",
    "-2147483648",
    "4294967296",
    "1e9",
    "1e-320",
    "",
    " ",
    "0x10",
    "1,2,3",
    "true",
];

/// Non-ASCII text: accents, CJK, a zero-width space, a right-to-left mark.
const NON_ASCII: &[&str] = &["é", "名前", "\u{200b}", "\u{200f}x", "Ω1"];

/// References that point nowhere.
const DANGLING: &[&str] = &["no_such_name", "world", "0", "main"];

fn tokens(v: &[u8]) -> Vec<Vec<u8>> {
    v.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty()).map(<[u8]>::to_vec).collect()
}

fn join(t: &[Vec<u8>]) -> Vec<u8> {
    t.join(&b' ')
}

/// A bad value for an attribute that held `old`, given the document's element names.
fn bad_value(r: &mut Rng, old: &[u8], names: &[Vec<u8>]) -> (Vec<u8>, &'static str) {
    let mut t = tokens(old);
    match r.below(11) {
        0..=2 => (r.pick(SPECIAL).as_bytes().to_vec(), "special value"),
        3 if !t.is_empty() => {
            let k = r.below(t.len());
            t[k] = r.pick(SPECIAL).as_bytes().to_vec();
            (join(&t), "one number special")
        }
        4 => {
            let extra = 1 + r.below(6);
            t.extend((0..extra).map(|i| format!("{}", i + 1).into_bytes()));
            (join(&t), "too many numbers")
        }
        5 if !t.is_empty() => {
            t.pop();
            (join(&t), "too few numbers")
        }
        6 => {
            let mut v = old.to_vec();
            v.extend(r.pick(NON_ASCII).as_bytes());
            (v, "non-ASCII")
        }
        7 => {
            // a lone continuation byte, an overlong lead, and bytes never valid in UTF-8
            let mut v = old.to_vec();
            v.extend(r.pick(&[&b"\xff\xfe"[..], b"\xc3", b"\x80abc", b"\xc0\xaf"]));
            (v, "non-UTF-8 bytes")
        }
        8 if !names.is_empty() => (names[r.below(names.len())].clone(), "name of another element"),
        9 => (r.pick(DANGLING).as_bytes().to_vec(), "dangling reference"),
        _ => {
            // every number scaled far up or down, or negated
            let f = r.pick(&[1e6, 1e-6, -1.0, 1e200]);
            let out: Vec<Vec<u8>> = t
                .iter()
                .map(|x| match std::str::from_utf8(x).ok().and_then(|s| s.parse::<f64>().ok()) {
                    Some(n) => format!("{}", n * f).into_bytes(),
                    None => x.clone(),
                })
                .collect();
            (join(&out), "numbers scaled")
        }
    }
}

/// Vertex lists of degenerate meshes: collinear, coplanar, duplicated, too few, tiny, huge,
/// nearly flat.
const DEGENERATE_VERTICES: &[(&str, &str)] = &[
    ("collinear", "0 0 0 1 0 0 2 0 0 3 0 0"),
    ("coplanar", "0 0 0 1 0 0 0 1 0 1 1 0"),
    ("duplicate", "0 0 0 0 0 0 0 0 0 0 0 0"),
    ("one vertex", "0 0 0"),
    ("two vertices", "0 0 0 1 1 1"),
    ("three vertices", "0 0 0 1 0 0 0 1 0"),
    ("tiny", "0 0 0 1e-300 0 0 0 1e-300 0 0 0 1e-300"),
    ("huge", "0 0 0 1e200 0 0 0 1e200 0 0 0 1e200"),
    ("nearly flat", "0 0 0 1 0 0 0 1 0 1 1 1e-15"),
    ("not a multiple of 3", "0 0 0 1 0 0 0 1 0 0 0"),
    ("NaN vertex", "0 0 0 1 0 0 0 1 0 0 0 nan"),
];

/// Builtin meshes with huge or degenerate parameters.
const BUILTIN_PARAMS: &[(&str, &str)] = &[
    ("sphere", "1e9"),
    ("sphere", "12"),
    ("sphere", "-1"),
    ("hemisphere", "2147483647"),
    ("cone", "8388608 1"),
    ("cone", "3 0"),
    ("supersphere", "100000 1 1"),
    ("supersphere", "3 0 0"),
    ("supertorus", "100000 .5 1 1"),
    ("supertorus", "4 0 0 0"),
    ("wedge", "5000 5000 1 1 0"),
    ("wedge", "1 1 0 0 0"),
    ("plate", "4097 4096"),
    ("plate", "1 1"),
    ("plate", "0 0"),
];

/// Height-field rows and columns: empty, one, and past 32 bits' worth of cells.
const HFIELD_COUNTS: &[&str] = &["0", "1", "2", "-3", "46341", "65536", "100000", "2147483647"];

/// One change to the tree.
fn tree_op(doc: &mut Doc, r: &mut Rng) -> String {
    let paths = doc.paths();
    let inner: Vec<&Vec<usize>> = paths.iter().filter(|p| !p.is_empty()).collect();
    let pick_inner = |r: &mut Rng| (!inner.is_empty()).then(|| inner[r.below(inner.len())].clone());
    let label = |doc: &Doc, p: &[usize]| doc.get(p).map_or(String::new(), |e| String::from_utf8_lossy(&e.name).into());
    match r.below(16) {
        0 | 1 => {
            let Some(p) = pick_inner(r) else { return "nothing to delete".into() };
            let name = label(doc, &p);
            doc.remove(&p);
            format!("deleted <{name}>")
        }
        2 | 3 => {
            let Some(p) = pick_inner(r) else { return "nothing to duplicate".into() };
            let Some(el) = doc.get(&p).cloned() else { return String::new() };
            let name = label(doc, &p);
            let (&last, parent) = p.split_last().unwrap_or((&0, &[]));
            if let Some(par) = doc.get_mut(parent) {
                par.children.insert(last + 1, Node::Element(el));
            }
            format!("duplicated <{name}>")
        }
        4 => {
            // moved under another element (a geom into <asset>, a body into <default>, ...)
            let Some(p) = pick_inner(r) else { return "nothing to move".into() };
            let name = label(doc, &p);
            let Some(el) = doc.remove(&p) else { return String::new() };
            let targets = doc.paths();
            let t = targets[r.below(targets.len())].clone();
            let to = label(doc, &t);
            if let Some(dst) = doc.get_mut(&t) {
                let at = r.below(dst.children.len() + 1);
                dst.children.insert(at, Node::Element(el));
            }
            format!("moved <{name}> into <{to}>")
        }
        5 => {
            // two siblings swapped (order matters for defaults, keyframes, references)
            let Some(p) = pick_inner(r) else { return "nothing to swap".into() };
            let (&last, parent) = p.split_last().unwrap_or((&0, &[]));
            let Some(par) = doc.get_mut(parent) else { return String::new() };
            let sib: Vec<usize> =
                (0..par.children.len()).filter(|&i| matches!(par.children[i], Node::Element(_))).collect();
            let other = sib[r.below(sib.len())];
            par.children.swap(last, other);
            "swapped two siblings".into()
        }
        6 | 7 => {
            let with: Vec<&Vec<usize>> =
                paths.iter().filter(|p| doc.get(p).is_some_and(|e| !e.attrs.is_empty())).collect();
            if with.is_empty() {
                return "no attribute to delete".into();
            }
            let p = with[r.below(with.len())].clone();
            let Some(el) = doc.get_mut(&p) else { return String::new() };
            let k = r.below(el.attrs.len());
            let (name, _) = el.attrs.remove(k);
            format!("deleted attribute {}", String::from_utf8_lossy(&name))
        }
        8 => {
            let with: Vec<&Vec<usize>> =
                paths.iter().filter(|p| doc.get(p).is_some_and(|e| !e.attrs.is_empty())).collect();
            if with.is_empty() {
                return "no attribute to duplicate".into();
            }
            let p = with[r.below(with.len())].clone();
            let Some(el) = doc.get_mut(&p) else { return String::new() };
            let k = r.below(el.attrs.len());
            let a = el.attrs[k].clone();
            el.attrs.insert(k + 1, a.clone());
            format!("duplicated attribute {}", String::from_utf8_lossy(&a.0))
        }
        9..=12 => {
            let names = doc.names();
            let with: Vec<&Vec<usize>> =
                paths.iter().filter(|p| doc.get(p).is_some_and(|e| !e.attrs.is_empty())).collect();
            if with.is_empty() {
                return "no attribute to set".into();
            }
            let p = with[r.below(with.len())].clone();
            let Some(el) = doc.get_mut(&p) else { return String::new() };
            let k = r.below(el.attrs.len());
            let (v, how) = bad_value(r, &el.attrs[k].1, &names);
            el.attrs[k].1 = escape(&v);
            format!("{}: {how}", String::from_utf8_lossy(&el.attrs[k].0))
        }
        13 => {
            // an attribute another element has, given to this one
            let all: Vec<(Vec<u8>, Vec<u8>)> =
                paths.iter().filter_map(|p| doc.get(p)).flat_map(|e| e.attrs.iter().cloned()).collect();
            let Some(p) = pick_inner(r) else { return "nothing to add to".into() };
            if all.is_empty() {
                return "no attribute to copy".into();
            }
            let a = all[r.below(all.len())].clone();
            let name = label(doc, &p);
            if let Some(el) = doc.get_mut(&p) {
                el.attrs.push(a.clone());
            }
            format!("gave <{name}> attribute {}", String::from_utf8_lossy(&a.0))
        }
        14 => degenerate_mesh(doc, r),
        _ => huge_asset(doc, r),
    }
}

/// A body (or the worldbody) to hang a new geom on.
fn geom_parent(doc: &mut Doc, r: &mut Rng, static_only: bool) -> Vec<usize> {
    let wb = doc.section(b"worldbody", false);
    let bodies: Vec<Vec<usize>> = doc
        .paths()
        .into_iter()
        .filter(|p| p.starts_with(&wb) && doc.get(p).is_some_and(|e| e.name == b"body" || e.name == b"worldbody"))
        .collect();
    if static_only || bodies.is_empty() {
        return wb;
    }
    bodies[r.below(bodies.len())].clone()
}

fn add_asset_and_geom(doc: &mut Doc, asset: Element, geom: Element, r: &mut Rng, static_only: bool) {
    let a = doc.section(b"asset", true);
    if let Some(el) = doc.get_mut(&a) {
        el.children.push(Node::Element(asset));
    }
    let g = geom_parent(doc, r, static_only);
    if let Some(el) = doc.get_mut(&g) {
        el.children.push(Node::Element(geom));
    }
}

fn el(name: &str, attrs: &[(&str, &str)]) -> Element {
    Element {
        name: name.as_bytes().to_vec(),
        attrs: attrs.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect(),
        children: Vec::new(),
    }
}

/// A degenerate inline mesh (`vertex=`, sometimes with faces out of range), and a geom using it.
fn degenerate_mesh(doc: &mut Doc, r: &mut Rng) -> String {
    let (what, vertex) = r.pick(DEGENERATE_VERTICES);
    let name = format!("fuzz_mesh{}", r.below(1000));
    let mut mesh = el("mesh", &[("name", &name), ("vertex", vertex)]);
    if r.chance(0.3) {
        let face = r.pick(&["0 1 2", "0 1 7", "0 0 0", "-1 0 1", "0 1 2 3"]);
        mesh.attrs.push((b"face".to_vec(), face.as_bytes().to_vec()));
    }
    let geom = el("geom", &[("type", "mesh"), ("mesh", &name)]);
    add_asset_and_geom(doc, mesh, geom, r, false);
    format!("degenerate mesh ({what})")
}

/// A builtin mesh with huge or degenerate parameters, a height field of extreme size, or a
/// huge builtin texture; each with something that uses it.
fn huge_asset(doc: &mut Doc, r: &mut Rng) -> String {
    let name = format!("fuzz_asset{}", r.below(1000));
    match r.below(3) {
        0 => {
            let (builtin, params) = r.pick(BUILTIN_PARAMS);
            let mesh = el("mesh", &[("name", &name), ("builtin", builtin), ("params", params)]);
            let geom = el("geom", &[("type", "mesh"), ("mesh", &name)]);
            add_asset_and_geom(doc, mesh, geom, r, false);
            format!("builtin {builtin} mesh, params {params}")
        }
        1 => {
            let (nrow, ncol) = (r.pick(HFIELD_COUNTS), r.pick(HFIELD_COUNTS));
            let size = r.pick(&["1 1 0.1 0.1", "0 0 0 0", "1e308 1 1 1", "1 1 nan 1", "1 1 0.1"]);
            let mut hf = el("hfield", &[("name", &name), ("nrow", nrow), ("ncol", ncol), ("size", size)]);
            if r.chance(0.5) {
                let elevation = r.pick(&["0 1 0 1", "1", "nan nan nan nan", "-1e308 1e308 0 0"]);
                hf.attrs.push((b"elevation".to_vec(), elevation.as_bytes().to_vec()));
            }
            let geom = el("geom", &[("type", "hfield"), ("hfield", &name)]);
            add_asset_and_geom(doc, hf, geom, r, true);
            format!("hfield {nrow}x{ncol}, size {size}")
        }
        _ => {
            let (w, h) = (r.pick(&["100000", "1", "0", "-1", "1000000000"]), r.pick(&["100000", "1", "0", "65536"]));
            let builtin = r.pick(&["checker", "gradient", "flat"]);
            let ty = r.pick(&["2d", "cube", "skybox"]);
            let tex =
                el("texture", &[("name", &name), ("type", ty), ("builtin", builtin), ("width", w), ("height", h)]);
            let mat_name = format!("{name}_mat");
            let mat = el("material", &[("name", &mat_name), ("texture", &name)]);
            let a = doc.section(b"asset", true);
            if let Some(e) = doc.get_mut(&a) {
                e.children.push(Node::Element(tex));
            }
            let geom = el("geom", &[("size", "0.1"), ("material", &mat_name)]);
            add_asset_and_geom(doc, mat, geom, r, false);
            format!("{builtin} {ty} texture {w}x{h}")
        }
    }
}

/// A change to the written bytes that leaves the file malformed (drawn before the bytes exist,
/// applied to them after the tree changes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ByteOp {
    /// The file cut at this fraction of its length.
    Truncate(f64),
    /// One closing tag (the k-th of the file, modulo their count) removed.
    DropClosingTag(usize),
    /// A stray `<` inserted at this fraction of the length.
    StrayBracket(f64),
    /// One byte replaced by 0xFF at this fraction.
    BadByte(f64),
    /// A NUL byte inserted at this fraction.
    Nul(f64),
}

impl ByteOp {
    fn draw(r: &mut Rng) -> ByteOp {
        match r.below(5) {
            0 => ByteOp::Truncate(r.unit()),
            1 => ByteOp::DropClosingTag(r.below(1 << 16)),
            2 => ByteOp::StrayBracket(r.unit()),
            3 => ByteOp::BadByte(r.unit()),
            _ => ByteOp::Nul(r.unit()),
        }
    }

    /// Applies the change to `b`.
    pub fn apply(self, b: &mut Vec<u8>) {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
        match self {
            ByteOp::Truncate(f) => b.truncate(at(f, b.len())),
            ByteOp::DropClosingTag(k) => {
                let starts: Vec<usize> = b.windows(2).enumerate().filter(|(_, w)| w == b"</").map(|(i, _)| i).collect();
                if starts.is_empty() {
                    return;
                }
                let s = starts[k % starts.len()];
                let e = b[s..].iter().position(|&c| c == b'>').map_or(b.len(), |p| s + p + 1);
                b.drain(s..e);
            }
            ByteOp::StrayBracket(f) => b.insert(at(f, b.len()), b'<'),
            ByteOp::BadByte(f) => {
                if !b.is_empty() {
                    let i = at(f, b.len() - 1);
                    b[i] = 0xFF;
                }
            }
            ByteOp::Nul(f) => b.insert(at(f, b.len()), 0),
        }
    }

    /// What the change does, in words.
    pub fn describe(self) -> String {
        match self {
            ByteOp::Truncate(f) => format!("truncated at {:.0}%", f * 100.0),
            ByteOp::DropClosingTag(_) => "a closing tag removed".into(),
            ByteOp::StrayBracket(_) => "a stray '<'".into(),
            ByteOp::BadByte(_) => "a 0xFF byte".into(),
            ByteOp::Nul(_) => "a NUL byte".into(),
        }
    }
}

/// A mutated file: the tree after its changes (when the base parsed), the byte-level changes
/// that follow, and what each change was.
#[derive(Clone, Debug)]
pub struct Mutated {
    /// The changed tree, or the base's bytes when they did not parse.
    pub doc: Result<Doc, Vec<u8>>,
    /// Malformations applied to the written bytes, in order.
    pub byte_ops: Vec<ByteOp>,
    /// Every change, in words.
    pub changes: Vec<String>,
}

impl Mutated {
    /// The mutated file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = match &self.doc {
            Ok(d) => d.to_bytes(),
            Err(raw) => raw.clone(),
        };
        for op in &self.byte_ops {
            op.apply(&mut b);
        }
        b
    }
}

/// Applies 1 to 4 mutations drawn from `r` to `base` (1 half the time); one in twelve is a byte-level
/// malformation (always, when the base does not parse).
pub fn mutate(base: &[u8], r: &mut Rng) -> Mutated {
    let mut doc = parse(base).ok_or_else(|| base.to_vec());
    // one mutation half the time: every further one makes a file both compilers reject likelier
    let n = match r.below(8) {
        0..=3 => 1,
        4 | 5 => 2,
        6 => 3,
        _ => 4,
    };
    let (mut byte_ops, mut changes) = (Vec::new(), Vec::new());
    for _ in 0..n {
        match &mut doc {
            Ok(d) if !r.chance(1.0 / 12.0) => changes.push(tree_op(d, r)),
            _ => {
                let op = ByteOp::draw(r);
                changes.push(op.describe());
                byte_ops.push(op);
            }
        }
    }
    Mutated { doc, byte_ops, changes }
}

/// Every tree one removal away from `doc`, larger removals first: each element other than the
/// root (with its subtree), then each attribute.
pub fn simpler(doc: &Doc) -> Vec<Doc> {
    let mut sized: Vec<(usize, Doc)> = Vec::new();
    for p in doc.paths().into_iter().filter(|p| !p.is_empty()) {
        let mut d = doc.clone();
        if let Some(removed) = d.remove(&p) {
            let mut size = Vec::new();
            write_element(&removed, &mut size);
            sized.push((size.len(), d));
        }
    }
    sized.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out: Vec<Doc> = sized.into_iter().map(|(_, d)| d).collect();
    for p in doc.paths() {
        let n = doc.get(&p).map_or(0, |e| e.attrs.len());
        for k in 0..n {
            let mut d = doc.clone();
            if let Some(e) = d.get_mut(&p) {
                e.attrs.remove(k);
            }
            out.push(d);
        }
    }
    // whitespace and comments go too, so the reproducer is short
    let mut bare = doc.clone();
    fn strip(el: &mut Element) {
        el.children.retain(|c| matches!(c, Node::Element(_)));
        for c in &mut el.children {
            if let Node::Element(e) = c {
                strip(e);
            }
        }
    }
    strip(&mut bare.root);
    bare.before.clear();
    bare.after.clear();
    if bare != *doc {
        out.insert(0, bare);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_and_writes_back_unchanged() {
        let src = b"<?xml version='1.0'?>\n<!-- c -->\n<mujoco model='m'>\n  <worldbody>\n    <geom size=\"1\" name='a\"b'/>\n  </worldbody>\n</mujoco>\n";
        let d = parse(src).unwrap();
        let back = d.to_bytes();
        assert_eq!(parse(&back).unwrap(), d);
        assert_eq!(d.paths().len(), 3);
    }

    #[test]
    fn a_malformed_file_is_not_a_tree() {
        assert!(parse(b"<mujoco><worldbody></mujoco>").is_none());
        assert!(parse(b"<a/><b/>").is_none());
    }

    #[test]
    fn byte_ops_malform_the_file() {
        let mut b = b"<a><b></b></a>".to_vec();
        ByteOp::DropClosingTag(0).apply(&mut b);
        assert_eq!(b, b"<a><b></a>");
        let mut b = b"<a/>".to_vec();
        ByteOp::Truncate(0.5).apply(&mut b);
        assert_eq!(b, b"<a");
    }
}
