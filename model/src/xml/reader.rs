//! XML text to an [`Element`] tree, with positions, using quick-xml as the tokenizer.
//!
//! quick-xml gives events and byte offsets; this module turns offsets into 1-based line and column
//! (columns count characters, not bytes), builds the tree, and turns quick-xml's errors into
//! [`MjcfError`]s that say what was expected.

use std::path::PathBuf;
use std::sync::Arc;

use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::{Attr, Element};
use crate::error::{MjcfError, Position};

/// Nesting depth (root = 1) at which an element that has content (a start tag, not `<a/>`) is
/// refused. tinyxml2, MuJoCo's XML parser, stops at 500 levels of its own recursion; measured with
/// MuJoCo 4.0.0: `<body>` nested so that the deepest `<body>...</body>` sits at depth 498 reads,
/// at depth 499 fails with XML_ELEMENT_DEPTH_EXCEEDED, while a self-closing `<body/>` at 499 reads.
/// The limit also keeps every recursive pass over the tree far from the stack limit.
const MAX_OPEN_DEPTH: usize = 499;

/// First code point of the private-use block that stands for bytes that are not UTF-8: byte `b`
/// becomes `U+F700 + b`. MuJoCo's XML reader (tinyxml2) works on bytes and accepts any of them in
/// comments, text and attribute values (measured with 4.0.0: `\xff` in a comment, in `model` and in
/// a body name loads); mapping each byte to its own character keeps distinct names distinct, which
/// a lossy decoding (every bad byte to U+FFFD) would not.
const RAW_BYTE_BASE: u32 = 0xF700;

/// The text of a file: its UTF-8, with each byte outside valid UTF-8 kept as its own character
/// (see [`RAW_BYTE_BASE`]).
///
/// A NUL byte ends the text: tinyxml2 parses the file as a C string, so MuJoCo sees nothing after
/// it (measured with 4.0.0: a NUL inside an attribute value fails as a bad attribute, one after
/// the root element's end tag loads).
pub(crate) fn decode(mut bytes: Vec<u8>) -> String {
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let bytes = err.into_bytes();
            let mut out = String::with_capacity(bytes.len() + 16);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                for &b in chunk.invalid() {
                    out.push(char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or('\u{fffd}'));
                }
            }
            out
        }
    }
}

/// The bytes MuJoCo sees for `text`: the inverse of [`decode`] (each stand-in character of a
/// byte outside UTF-8 back to that byte, everything else as UTF-8). MuJoCo measures attribute
/// lengths in these bytes (measured with 4.0.0: a 12-cell `gridlayout` holding `\xff` loads).
pub(crate) fn raw_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for ch in text.chars() {
        match u32::from(ch).checked_sub(RAW_BYTE_BASE) {
            Some(b) if b <= 0xFF => out.push(b as u8),
            _ => out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// Byte offsets of line starts, to map an offset to (line, column).
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    file: Arc<PathBuf>,
    /// Whether the text is all ASCII: then a column is a byte count. Otherwise the last answer
    /// (offset, its column) lets the next one on the same line count only the characters in
    /// between: the reader asks in increasing order, and a file of one long line would
    /// otherwise take quadratic time (a body of 4000 geoms on one line: 89 % of the load).
    ascii: bool,
    last: std::cell::Cell<(usize, usize)>,
}

impl<'a> LineIndex<'a> {
    /// Index the line starts of `text`.
    pub(crate) fn new(text: &'a str, file: Arc<PathBuf>) -> Self {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { text, starts, file, ascii: text.is_ascii(), last: std::cell::Cell::new((0, 0)) }
    }

    /// The position of byte `offset` (clamped to the text).
    pub(crate) fn pos(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let (last_offset, last_col) = self.last.get();
        let from = if (start..=offset).contains(&last_offset) { (last_offset, last_col) } else { (start, 0) };
        // An offset inside a multi-byte character (never produced by quick-xml on valid UTF-8,
        // but cheap to survive) falls back to counting bytes.
        let col = if self.ascii {
            offset - start
        } else {
            match self.text.get(from.0..offset) {
                Some(s) => from.1 + s.chars().count(),
                None => offset - start,
            }
        };
        if self.text.is_char_boundary(offset) {
            self.last.set((offset, col));
        }
        Position { file: self.file.clone(), line: line as u32 + 1, col: col as u32 + 1 }
    }
}

/// Read `text` (one XML document) into its root element. No include expansion, no schema check.
pub(crate) fn read_document(text: &str, file: Arc<PathBuf>) -> Result<Element, MjcfError> {
    // A UTF-8 byte-order mark is not part of the document; editors do not count it as a column.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let blanked = blank_unknown_nodes(text);
    let text = blanked.as_deref().unwrap_or(text);
    let index = LineIndex::new(text, file);
    let mut reader = Reader::from_str(text);
    {
        let config = reader.config_mut();
        config.trim_text(false);
        config.check_end_names = true;
        config.expand_empty_elements = false;
        // tinyxml2 (MuJoCo's parser) accepts "--" inside comments, and corpus files use it.
        config.check_comments = false;
    }

    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    // Nodes of the document level other than declarations (comments, text, CDATA) seen so far.
    let mut document_nodes = 0usize;
    loop {
        // With text trimming off every byte belongs to some event, so the offset before reading
        // an element event is exactly where its `<` is.
        let start = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(err) => {
                let at = reader.error_position() as usize;
                return Err(syntax_error(&index, &stack, at, err));
            }
        };
        match event {
            Event::Start(e) => {
                let element = new_element(&e, text, start, &index)?;
                if stack.len() + 1 >= MAX_OPEN_DEPTH {
                    return Err(MjcfError::new(
                        element.pos,
                        format!(
                            "element nesting is too deep: MuJoCo's XML parser refuses an element with content \
                             at depth {MAX_OPEN_DEPTH} or more"
                        ),
                    ));
                }
                stack.push(element);
            }
            Event::Empty(e) => {
                let element = new_element(&e, text, start, &index)?;
                attach(element, &mut stack, &mut root);
            }
            Event::End(_) => {
                // quick-xml has already checked that the end name matches the open element.
                if let Some(mut element) = stack.pop() {
                    let trimmed = element.text.trim();
                    if trimmed.len() != element.text.len() {
                        element.text = trimmed.to_string();
                    }
                    attach(element, &mut stack, &mut root);
                }
            }
            Event::Text(t) => {
                let content = unescape(&String::from_utf8_lossy(t.as_ref()));
                match stack.last_mut() {
                    Some(parent) => parent.text.push_str(&content),
                    None => {
                        // tinyxml2 keeps text beside the root as a node of the document and reads
                        // it up to the next '<'; only text with no '<' after it, at the end of the
                        // file, is an error (measured: "junk" before <mujoco> loads, "junk" after
                        // it loads when a comment or element follows, and fails at the end).
                        let at_end = start + t.as_ref().len() >= text.len();
                        if at_end && !content.trim().is_empty() {
                            let skip = t.as_ref().iter().take_while(|b| b.is_ascii_whitespace()).count();
                            return Err(MjcfError::new(
                                index.pos(start + skip),
                                "text at the end of the file, after the root element; MuJoCo's XML parser \
                                 expects '<' after it",
                            ));
                        }
                        if !content.trim().is_empty() {
                            document_nodes += 1;
                        }
                    }
                }
            }
            Event::CData(c) => {
                let content = String::from_utf8_lossy(c.as_ref()).into_owned();
                match stack.last_mut() {
                    Some(parent) => {
                        parent.text.push_str(&content);
                        parent.cdata += 1;
                    }
                    // tinyxml2 keeps CDATA beside the root as a document node too (measured: loads).
                    None => document_nodes += 1,
                }
            }
            Event::PI(_) | Event::Decl(_) => {
                // tinyxml2 reads every `<?...?>` as a declaration and allows declarations only at
                // the document level, before any other node (measured with 4.0.0: a `<?pi?>` after
                // the root element fails with XML_ERROR_PARSING_DECLARATION).
                if !stack.is_empty() || document_nodes > 0 || root.is_some() {
                    return Err(MjcfError::new(
                        index.pos(start),
                        "a '<?...?>' declaration may only appear at the start of the file, before any element, \
                         comment or text",
                    ));
                }
            }
            Event::Comment(_) => {
                if stack.is_empty() {
                    document_nodes += 1;
                }
            }
            // tinyxml2 keeps a DOCTYPE as an "unknown" node, which no declaration may follow.
            Event::DocType(_) => document_nodes += 1,
            Event::Eof => break,
        }
    }
    if let Some(open) = stack.last() {
        return Err(MjcfError::new(
            open.pos.clone(),
            format!("element <{}> is never closed; expected </{}> before the end of the file", open.name, open.name),
        ));
    }
    root.ok_or_else(|| MjcfError::new(index.pos(text.len()), "no root element; expected <mujoco>"))
}

/// The text with each `<!...>` that is not a comment, CDATA section or DOCTYPE blanked out
/// (newlines kept, so positions stay), or `None` when there is none. tinyxml2 reads such markup
/// up to the next `>` as an "unknown" node, which MuJoCo skips (measured with 4.0.0: a comment
/// whose second byte is 0xFF, `<!\xff- ... -->`, loads); quick-xml refuses it.
fn blank_unknown_nodes(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let find = |from: usize, pat: &[u8]| b[from..].windows(pat.len()).position(|w| w == pat).map(|p| from + p);
    let mut i = 0;
    while let Some(lt) = find(i, b"<") {
        let rest = &b[lt..];
        let skip_to = |end: &[u8], from: usize| find(from, end).map(|p| p + end.len());
        let next = if rest.starts_with(b"<!--") {
            skip_to(b"-->", lt + 4)
        } else if rest.starts_with(b"<![CDATA[") {
            skip_to(b"]]>", lt + 9)
        } else if rest.len() >= 9 && rest[2..9].eq_ignore_ascii_case(b"DOCTYPE") {
            skip_to(b">", lt + 9)
        } else if rest.starts_with(b"<!") {
            let end = find(lt + 2, b">");
            if let Some(e) = end {
                spans.push((lt, e + 1));
            }
            end.map(|e| e + 1)
        } else {
            // a tag: its quoted values may hold '<' or '>'
            let mut j = lt + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            Some(j + 1)
        };
        match next {
            Some(n) => i = n.min(b.len()),
            None => break,
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = text.as_bytes().to_vec();
    for (from, to) in spans {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    // only ASCII bytes were written over whole spans that start and end on ASCII bytes
    String::from_utf8(out).ok()
}

/// Put a finished element under its parent, or make it the root. Elements after the first at
/// the document level are read (so they must be well formed) and dropped: tinyxml2 keeps them as
/// further document nodes and MuJoCo reads only the first element (measured with 4.0.0: a second
/// `<mujoco>` with an unknown child after the model loads, and `<x/>` before `<mujoco>` fails as
/// an unrecognized model type).
fn attach(element: Element, stack: &mut [Element], root: &mut Option<Element>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(element),
        None => {
            if root.is_none() {
                *root = Some(element);
            }
        }
    }
}

/// Build an element (without children) from a start tag at byte `start`.
fn new_element(e: &BytesStart, text: &str, start: usize, index: &LineIndex) -> Result<Element, MjcfError> {
    let pos = index.pos(start);
    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    if let Some(bad) = bad_name_at(&name) {
        let what = if name.is_empty() {
            "'<' must be followed by an element name".to_string()
        } else {
            format!("malformed element name '{name}'")
        };
        return Err(MjcfError::new(
            index.pos(start + 1 + bad),
            format!(
                "{what}: MuJoCo's XML parser reads a name of letters, digits, '_', ':', '.' and '-' that starts \
                 with a letter, '_' or ':'"
            ),
        ));
    }
    let mut attrs: Vec<Attr> = Vec::new();
    // Offsets in attribute errors are relative to the first byte after `<`.
    let tag_base = start + 1;
    for item in e.attributes().with_checks(false) {
        let attr = match item {
            Ok(attr) => attr,
            Err(err) => return Err(attr_syntax_error(index, tag_base, &name, err)),
        };
        let key = attr.key.as_ref();
        let key_offset = offset_in(text, key).unwrap_or(start);
        let attr_pos = index.pos(key_offset);
        let attr_name = String::from_utf8_lossy(key).into_owned();
        if let Some(bad) = bad_name_at(&attr_name) {
            return Err(MjcfError::new(
                index.pos(key_offset + bad),
                if bad == 0 {
                    format!("malformed attribute in <{name}>: '{attr_name}' is not a name; a name starts with a letter, '_' or ':'")
                } else {
                    format!(
                        "malformed attribute in <{name}>: '{attr_name}' is not a name; expected '=' after '{}'",
                        &attr_name[..bad]
                    )
                },
            ));
        }
        let value = unescape(&String::from_utf8_lossy(&attr.value));
        if let Some(prev) = attrs.iter().find(|a| a.name == attr_name) {
            return Err(MjcfError::new(
                attr_pos,
                format!("duplicate attribute '{attr_name}' in <{name}> (first given at {})", prev.pos),
            ));
        }
        attrs.push(Attr { name: attr_name, value, pos: attr_pos });
    }
    Ok(Element { name, attrs, children: Vec::new(), pos, text: String::new(), cdata: 0 })
}

/// The byte offset of the first character of `name` that tinyxml2 (MuJoCo's XML parser) does not
/// read as part of a name, if any: a name starts with an ASCII letter, '_', ':' or any byte of 128
/// or more, and goes on with those, ASCII digits, '.' and '-'. tinyxml2 ends the name there and
/// then fails (measured with 4.0.0: `<frame eule<r="0 0 1">` is XML_ERROR_PARSING_ATTRIBUTE).
fn bad_name_at(name: &str) -> Option<usize> {
    let start = |c: char| !c.is_ascii() || c.is_ascii_alphabetic() || c == '_' || c == ':';
    let inner = |c: char| start(c) || c.is_ascii_digit() || c == '.' || c == '-';
    match name.char_indices().next() {
        None => Some(0),
        Some((_, c)) if !start(c) => Some(0),
        _ => name.char_indices().find(|&(_, c)| !inner(c)).map(|(i, _)| i),
    }
}

/// Byte offset of `part` inside `whole`, if `part` borrows from it.
fn offset_in(whole: &str, part: &[u8]) -> Option<usize> {
    let base = whole.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    if at >= base && at + part.len() <= base + whole.len() {
        Some(at - base)
    } else {
        None
    }
}

/// An error for malformed attribute syntax inside a tag.
fn attr_syntax_error(index: &LineIndex, tag_base: usize, element: &str, err: AttrError) -> MjcfError {
    let (rel, what) = match err {
        AttrError::ExpectedEq(p) => (p, "expected '=' after the attribute name".to_string()),
        AttrError::ExpectedValue(p) => (p, "expected a quoted value after '='".to_string()),
        AttrError::UnquotedValue(p) => (p, "attribute value must be in quotes".to_string()),
        AttrError::ExpectedQuote(p, q) => (p, format!("expected closing quote {}", q as char)),
        AttrError::Duplicated(p, _) => (p, "duplicate attribute".to_string()),
    };
    MjcfError::new(index.pos(tag_base + rel), format!("malformed attribute in <{element}>: {what}"))
}

/// Turn a quick-xml error into an [`MjcfError`] with a helpful message.
fn syntax_error(index: &LineIndex, stack: &[Element], at: usize, err: quick_xml::Error) -> MjcfError {
    use quick_xml::errors::{IllFormedError, SyntaxError};
    let message = match &err {
        quick_xml::Error::IllFormed(IllFormedError::MismatchedEndTag { expected, found }) => {
            let open = stack.last().map(|e| format!(" opened at {}", e.pos)).unwrap_or_default();
            format!("mismatched end tag </{found}>; expected </{expected}> to close <{expected}>{open}")
        }
        quick_xml::Error::IllFormed(IllFormedError::UnmatchedEndTag(found)) => {
            format!("end tag </{found}> has no matching start tag")
        }
        quick_xml::Error::Syntax(SyntaxError::UnclosedTag) => {
            "unclosed tag: expected '>' before the end of the file".into()
        }
        quick_xml::Error::Syntax(SyntaxError::UnclosedComment) => "unclosed comment: expected '-->'".into(),
        quick_xml::Error::Syntax(SyntaxError::UnclosedCData) => "unclosed CDATA section: expected ']]>'".into(),
        quick_xml::Error::Syntax(SyntaxError::UnclosedPIOrXmlDecl) => {
            "unclosed processing instruction: expected '?>'".into()
        }
        quick_xml::Error::Syntax(SyntaxError::UnclosedDoctype) => "unclosed DOCTYPE: expected '>'".into(),
        quick_xml::Error::Syntax(SyntaxError::InvalidBangMarkup) => {
            "invalid '<!' markup: expected a comment, CDATA or DOCTYPE".into()
        }
        quick_xml::Error::IllFormed(IllFormedError::DoubleHyphenInComment) => {
            "'--' is not allowed inside a comment".into()
        }
        other => format!("XML syntax error: {other}"),
    };
    MjcfError::new(index.pos(at), message)
}

/// Resolve XML entity references the way tinyxml2 (MuJoCo's XML parser) does: the five predefined
/// entities and decimal or hexadecimal character references are replaced; anything else,
/// including unknown or malformed references, stays as literal text. Measured with MuJoCo 4.0.0:
/// `model="a&foo;b"` gives the name `a&foo;b`, `&#xZZ;` and `&#1114112;` stay literal.
pub(crate) fn unescape(raw: &str) -> String {
    if !raw.contains('&') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let replaced = tail.find(';').and_then(|semi| {
            let body = &tail[1..semi];
            let ch = match body {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let code = if let Some(hex) = body.strip_prefix("#x") {
                        u32::from_str_radix(hex, 16).ok()
                    } else if let Some(dec) = body.strip_prefix('#') {
                        dec.parse::<u32>().ok()
                    } else {
                        None
                    };
                    code.filter(|&c| c != 0).and_then(char::from_u32)
                }
            };
            ch.map(|c| (c, semi + 1))
        });
        match replaced {
            Some((c, used)) => {
                out.push(c);
                rest = &tail[used..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
