//! The MJCF reader on bad input (each error must name the exact line and column, and say what
//! was expected) and on the shared corpus of real MuJoCo models (each must read without error).
//!
//! Positions are 1-based; columns count characters. Each expected position below is derived by
//! hand from the snippet (the comment next to it says where it points). The corpus tests are
//! skipped, saying so, without the corpus.

mod common;

use std::path::{Path, PathBuf};

use specula_model::xml::{parse_file, parse_str};
use specula_model::MjcfError;

/// Every `.xml` file below `dir`, sorted.
fn xml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read corpus dir").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            xml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "xml") {
            out.push(path);
        }
    }
}

#[test]
fn corpus_reads_without_error() {
    let Some(corpus) = common::corpus() else { return };
    let mut files = Vec::new();
    xml_files(&corpus, &mut files);
    // MANIFEST.md lists 52 models plus included/attached files and local scenes.
    assert!(files.len() >= 60, "expected the whole corpus, found {} files", files.len());
    let mut failures = Vec::new();
    for file in &files {
        if let Err(err) = parse_file(file) {
            failures.push(err.to_string());
        }
    }
    assert!(failures.is_empty(), "{} of {} corpus files failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}

#[test]
fn corpus_includes_are_expanded() {
    // bunnies.xml includes container.xml, whose worldbody elements must appear in place, with
    // positions that point into container.xml.
    let Some(corpus) = common::corpus() else { return };
    let root = parse_file(&corpus.join("model/replicate/bunnies.xml")).expect("bunnies.xml reads");
    assert!(root.children.iter().all(|c| c.name != "include"));
    let from_container = root.children.iter().find(|c| c.pos.file.ends_with("container.xml"));
    assert!(
        from_container.is_some(),
        "no element from container.xml in {:?}",
        root.children.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    // transitive_test: parent -> child -> grandchild, each adding elements.
    let root = parse_file(&corpus.join("test/xml/mjz/testdata/transitive_test/parent.xml")).expect("parent.xml reads");
    let mut files = Vec::new();
    collect_files(&root, &mut files);
    for name in ["parent.xml", "child.xml", "grandchild.xml"] {
        assert!(files.iter().any(|f| f.ends_with(name)), "no element from {name}: {files:?}");
    }
}

/// The file names of every element in the tree.
fn collect_files(el: &specula_model::xml::Element, out: &mut Vec<PathBuf>) {
    out.push(el.pos.file.as_ref().clone());
    for c in &el.children {
        collect_files(c, out);
    }
}

/// Parse `xml` and return the error, panicking if it parsed.
fn err(xml: &str) -> MjcfError {
    match parse_str(xml, Path::new("."), "t.xml") {
        Ok(_) => panic!("expected an error for:\n{xml}"),
        Err(e) => e,
    }
}

/// Assert the error of `xml` is at `line:col` and its message contains every fragment.
#[track_caller]
fn check(xml: &str, line: u32, col: u32, fragments: &[&str]) {
    let e = err(xml);
    assert_eq!((e.pos.line, e.pos.col), (line, col), "wrong position for error: {e}");
    for f in fragments {
        assert!(e.message.contains(f), "message {:?} lacks {:?}", e.message, f);
    }
}

/// A model whose worldbody holds `body` (worldbody on line 2, `body` from line 3, column 5).
fn world(body: &str) -> String {
    format!("<mujoco>\n  <worldbody>\n    {body}\n  </worldbody>\n</mujoco>\n")
}

// ---- XML syntax -------------------------------------------------------------------------------

#[test]
fn mismatched_end_tag() {
    // `</world>` starts at column 3 of line 3.
    check(
        "<mujoco>\n  <worldbody>\n  </world>\n</mujoco>",
        3,
        3,
        &["mismatched end tag </world>", "expected </worldbody>"],
    );
}

#[test]
fn unmatched_end_tag() {
    // The stray `</mujoco>` starts line 2: the root was already closed.
    check("<mujoco/>\n</mujoco>", 2, 1, &["</mujoco>", "no matching start tag"]);
}

#[test]
fn element_never_closed() {
    // worldbody (line 2, column 3) is still open at the end of the file.
    check("<mujoco>\n  <worldbody>\n    <geom size=\"1\"/>\n", 2, 3, &["<worldbody> is never closed", "</worldbody>"]);
}

#[test]
fn tag_cut_off_at_end_of_file() {
    // The unterminated `<geom` starts at column 5 of line 3.
    check("<mujoco>\n  <worldbody>\n    <geom size=\"1\"", 3, 5, &["unclosed tag"]);
}

#[test]
fn unclosed_comment() {
    check("<mujoco>\n  <!-- note\n</mujoco>\n", 2, 3, &["unclosed comment"]);
}

#[test]
fn duplicate_attribute() {
    // The second `timestep` is at column 32 of line 1 (`<mujoco><option ` is 16 characters,
    // `timestep="0.1" ` 15 more).
    check(
        "<mujoco><option timestep=\"0.1\" timestep=\"0.2\"/></mujoco>",
        1,
        32,
        &["duplicate attribute 'timestep'", "t.xml:1:17"],
    );
}

#[test]
fn unquoted_attribute_value() {
    // quick-xml reports the position of the value that lacks quotes: column 15.
    check("<mujoco model=abc/>", 1, 15, &["must be in quotes"]);
}

#[test]
fn attribute_without_value() {
    // `model` has no `=`: the error points just after the name (column 14).
    check("<mujoco model><worldbody/></mujoco>", 1, 14, &["expected '='"]);
}

#[test]
fn text_at_the_end_of_the_file() {
    // tinyxml2 reads document-level text up to the next '<'; with none left it fails.
    check("<mujoco/>\n  junk\n", 2, 3, &["text at the end of the file"]);
}

#[test]
fn text_and_elements_beside_the_root_are_read_and_dropped() {
    // MuJoCo 4.0.0 loads these: text before the root, text followed by a comment, and a second
    // root element (which must still be well formed).
    for xml in ["junk\n<mujoco/>", "<mujoco/>\njunk <!-- c -->\n", "<mujoco/>\n<mujoco><bad/></mujoco>\n"] {
        let root = parse_str(xml, Path::new("."), "t.xml").unwrap_or_else(|e| panic!("{xml:?}: {e}"));
        assert!(root.children.is_empty(), "{xml:?}: the first root is the model");
    }
    check("<mujoco/>\n<x><y></x>\n", 2, 7, &["mismatched end tag"]);
}

#[test]
fn declaration_after_the_first_node() {
    // tinyxml2 allows `<?...?>` only before every other node of the document.
    check("<mujoco/>\n<?pi x?>\n", 2, 1, &["declaration may only appear at the start"]);
    check("<!-- c -->\n<?xml version=\"1.0\"?>\n<mujoco/>", 2, 1, &["declaration may only appear"]);
    assert!(parse_str("<?xml version=\"1.0\"?>\n<!-- c -->\n<mujoco/>", Path::new("."), "t.xml").is_ok());
}

#[test]
fn empty_document() {
    check("  \n", 2, 1, &["no root element"]);
    check("<!-- only a comment -->", 1, 24, &["no root element"]);
}

#[test]
fn non_mujoco_root() {
    check("<robot name=\"r\"/>", 1, 1, &["root element is <robot>", "expected <mujoco>", "URDF"]);
    check("\n <Mujoco/>", 2, 2, &["root element is <Mujoco>"]);
}

#[test]
fn columns_count_characters_not_bytes() {
    // "é" and "ö" are two bytes each in UTF-8 but one column; `<wörld/>` starts at column 20.
    check("<mujoco model=\"é\"> <wörld/></mujoco>", 1, 20, &["unknown element <wörld>"]);
}

#[test]
fn byte_order_mark_is_not_a_column() {
    check("\u{feff}<mujoco><foo/></mujoco>", 1, 9, &["unknown element <foo>"]);
}

#[test]
fn tabs_and_crlf() {
    // A tab is one column; "\r\n" is one line break.
    check(
        "<mujoco>\r\n\t<worldbody>\r\n\t\t<geom sizee=\"1\"/>\r\n\t</worldbody>\r\n</mujoco>",
        3,
        9,
        &["unknown attribute 'sizee'"],
    );
}

#[test]
fn nesting_too_deep() {
    // MuJoCo 4.0.0 (tinyxml2) refuses an element with content at depth 499 (root = 1) and
    // accepts a self-closing one there; measured with nested <body> elements.
    let open = 496;
    let ok =
        format!("<mujoco><worldbody>{}<body/>{}</worldbody></mujoco>", "<body>".repeat(open), "</body>".repeat(open));
    parse_str(&ok, Path::new("."), "t.xml").expect("depth 499 self-closing is fine");
    let bad = format!(
        "<mujoco><worldbody>{}<body></body>{}</worldbody></mujoco>",
        "<body>".repeat(open),
        "</body>".repeat(open)
    );
    // The refused <body> starts after "<mujoco><worldbody>" (19 characters) and 496 "<body>" (6 each).
    check(&bad, 1, 19 + 6 * 496 + 1, &["nesting is too deep"]);
}

// ---- schema: elements and attributes -----------------------------------------------------------

#[test]
fn unknown_element_in_body_tree() {
    check(&world("<bodyy/>"), 3, 5, &["unknown element <bodyy> in <worldbody>", "did you mean <body>?"]);
}

#[test]
fn unknown_top_level_element() {
    check(
        "<mujoco>\n  <worldbdy/>\n</mujoco>",
        2,
        3,
        &["unknown element <worldbdy> in <mujoco>", "did you mean <worldbody>?"],
    );
}

#[test]
fn unknown_attribute_with_suggestion() {
    // `sizee` starts at column 11: 4 spaces, "<geom " is 6 characters.
    check(&world("<geom sizee=\"1\"/>"), 3, 11, &["unknown attribute 'sizee' in <geom>", "did you mean 'size'?"]);
}

#[test]
fn unknown_attribute_lists_allowed_names() {
    check(
        "<mujoco><compiler qqq=\"1\"/></mujoco>",
        1,
        19,
        &["unknown attribute 'qqq' in <compiler>", "allowed: autolimits"],
    );
}

#[test]
fn composite_is_gone_in_4_0_0() {
    // MuJoCo 4.0.0 answers "Schema violation: unrecognized element" for composite.
    check(&world("<composite type=\"grid\" count=\"2 2 1\"/>"), 3, 5, &["unknown element <composite>"]);
}

#[test]
fn worldbody_takes_no_attributes() {
    check(
        "<mujoco>\n  <worldbody pos=\"0 0 1\"/>\n</mujoco>",
        2,
        14,
        &["unknown attribute 'pos' in <worldbody>", "takes no attributes"],
    );
}

#[test]
fn default_class_geom_has_no_name() {
    // In a default class geom takes the geom attributes minus name and class.
    check(
        "<mujoco>\n  <default>\n    <geom name=\"g\"/>\n  </default>\n</mujoco>",
        3,
        11,
        &["unknown attribute 'name' in <geom>"],
    );
}

#[test]
fn element_in_wrong_place() {
    // A joint is fine in a body, but not directly in <asset>.
    check(
        "<mujoco>\n  <asset>\n    <joint/>\n  </asset>\n</mujoco>",
        3,
        5,
        &["unknown element <joint> in <asset>", "allowed: mesh"],
    );
}

#[test]
fn at_most_one_inertial() {
    let xml = world(
        "<body>\n      <inertial pos=\"0 0 0\" mass=\"1\"/>\n      <inertial pos=\"0 0 0\" mass=\"1\"/>\n    </body>",
    );
    // The second inertial is on line 5, column 7; the first on line 4.
    check(&xml, 5, 7, &["<inertial> may appear at most once in <body>", "t.xml:4:7"]);
}

#[test]
fn required_attribute_missing() {
    check(
        &world("<body><inertial mass=\"1\"/></body>"),
        3,
        11,
        &["<inertial> is missing its required attribute 'pos'"],
    );
}

#[test]
fn exclusive_attributes() {
    // MuJoCo: "at most one of 'fullinertia', 'quat', ... can be specified"; the error points at
    // the attribute that made the second bundle present (quat, column 68).
    let xml = world("<body><inertial pos=\"0 0 0\" mass=\"1\" fullinertia=\"1 1 1 0 0 0\" quat=\"1 0 0 0\"/></body>");
    check(&xml, 3, 68, &["at most one of 'fullinertia', 'quat'"]);
}

#[test]
fn attributes_required_together() {
    let xml =
        "<mujoco>\n  <sensor>\n    <framepos objtype=\"site\" objname=\"s\" reftype=\"site\"/>\n  </sensor>\n</mujoco>";
    check(xml, 3, 5, &["'reftype', 'refname' must be specified together"]);
}

#[test]
fn one_of_attributes_required() {
    let xml = "<mujoco>\n  <sensor>\n    <distance geom1=\"g\"/>\n  </sensor>\n</mujoco>";
    check(xml, 3, 5, &["one of 'geom2', 'body2' must be specified"]);
}

// ---- values -------------------------------------------------------------------------------------

#[test]
fn malformed_real() {
    check(
        &world("<geom size=\"1\" pos=\"1.2.3 0 0\"/>"),
        3,
        20,
        &["attribute 'pos' of <geom>", "value 1 '1.2.3' is not a real number"],
    );
}

#[test]
fn letters_where_a_real_is_expected() {
    check(&world("<geom size=\"abc\"/>"), 3, 11, &["value 1 'abc' is not a real number"]);
}

#[test]
fn exponent_without_digits() {
    // strtod would stop before the bare "e", so MuJoCo reports "bad format".
    check(&world("<geom size=\"1e\"/>"), 3, 11, &["'1e' is not a real number"]);
}

#[test]
fn comma_separated_reals() {
    check(&world("<geom size=\"1\" pos=\"1,2,3\"/>"), 3, 20, &["'1,2,3' is not a real number"]);
}

#[test]
fn too_few_reals() {
    // MuJoCo: "attribute 'pos' does not have enough data".
    check(
        &world("<geom size=\"1\" pos=\"1 2\"/>"),
        3,
        20,
        &["attribute 'pos' of <geom>: expected 3 real numbers, found 2 values"],
    );
}

#[test]
fn too_many_reals() {
    // size takes 1 to 3 values; MuJoCo rejects a fourth.
    check(&world("<geom size=\"1 2 3 4\"/>"), 3, 11, &["expected 1 to 3 real numbers, found 4"]);
}

#[test]
fn real_overflow() {
    // MuJoCo: "number is too large in attribute 'pos'".
    check(&world("<geom size=\"1\" pos=\"1e999 0 0\"/>"), 3, 20, &["'1e999' is too large"]);
}

#[test]
fn float_overflow() {
    // rgba is stored as float: 1e39 overflows strtof although it fits a double.
    check(&world("<geom size=\"1\" rgba=\"1e39 1 1 1\"/>"), 3, 20, &["'1e39' is too large"]);
}

#[test]
fn real_where_int_expected() {
    // MuJoCo: "bad format in attribute 'condim'".
    check(
        &world("<geom size=\"1\" condim=\"3.0\"/>"),
        3,
        20,
        &["attribute 'condim' of <geom>", "'3.0' is not an integer"],
    );
}

#[test]
fn int_overflow() {
    check(&world("<geom size=\"1\" contype=\"99999999999\"/>"), 3, 20, &["'99999999999' is too large for an integer"]);
}

#[test]
fn bad_keyword() {
    check(
        &world("<geom type=\"spher\" size=\"1\"/>"),
        3,
        11,
        &["invalid keyword 'spher'", "plane, hfield, sphere, capsule"],
    );
}

#[test]
fn keywords_are_case_sensitive() {
    check("<mujoco>\n  <option integrator=\"rk4\"/>\n</mujoco>", 2, 11, &["invalid keyword 'rk4'", "RK4"]);
}

#[test]
fn bad_bool() {
    // MuJoCo: "invalid keyword: 'True'".
    check(&world("<body mocap=\"True\"/>"), 3, 11, &["invalid keyword 'True'", "true, false"]);
}

#[test]
fn bad_flag_value() {
    check(
        "<mujoco><option><flag contact=\"off\"/></option></mujoco>",
        1,
        23,
        &["invalid keyword 'off'", "disable, enable"],
    );
}

#[test]
fn bad_keyword_in_list() {
    let xml = "<mujoco>\n  <sensor>\n    <contact data=\"found forc\"/>\n  </sensor>\n</mujoco>";
    check(xml, 3, 14, &["invalid keyword 'forc'", "found, force"]);
}

#[test]
fn keywords_out_of_canonical_order() {
    // MuJoCo 4.0.0: "data attributes must be in order: found, force, torque, ...".
    let xml = "<mujoco>\n  <sensor>\n    <contact data=\"force found\"/>\n  </sensor>\n</mujoco>";
    check(xml, 3, 14, &["keyword 'found' out of order", "found, force, torque"]);
}

#[test]
fn wrong_character_count() {
    // MuJoCo: "attribute 'eulerseq' must have exactly 3 characters".
    check("<mujoco><compiler eulerseq=\"xy\"/></mujoco>", 1, 19, &["expected exactly 3 characters, found 2"]);
}

// ---- include ------------------------------------------------------------------------------------

/// A fresh directory under the system temp dir for one test.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("specula-reader-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

#[test]
fn missing_include_file() {
    // The include element is at line 2, column 3.
    check(
        "<mujoco>\n  <include file=\"no_such_file_1234.xml\"/>\n</mujoco>",
        2,
        3,
        &["included file 'no_such_file_1234.xml' not found"],
    );
}

#[test]
fn include_without_file() {
    check("<mujoco>\n  <include/>\n</mujoco>", 2, 3, &["missing its required attribute 'file'"]);
}

#[test]
fn include_with_children() {
    check(
        "<mujoco>\n  <include file=\"a.xml\">\n    <geom/>\n  </include>\n</mujoco>",
        3,
        5,
        &["an include element must be empty"],
    );
}

#[test]
fn include_cycle() {
    let dir = temp_dir("cycle");
    std::fs::write(dir.join("a.xml"), "<mujoco>\n  <include file=\"b.xml\"/>\n</mujoco>\n").unwrap();
    std::fs::write(dir.join("b.xml"), "<mujoco>\n  <worldbody/>\n  <include file=\"a.xml\"/>\n</mujoco>\n").unwrap();
    let e = parse_file(&dir.join("a.xml")).expect_err("cycle must fail");
    // The include in b.xml (line 3, column 3) closes the cycle.
    assert!(e.pos.file.ends_with("b.xml"), "{e}");
    assert_eq!((e.pos.line, e.pos.col), (3, 3), "{e}");
    assert!(
        e.message.contains("include cycle") && e.message.contains("a.xml -> ") && e.message.contains("b.xml ->"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_included_twice() {
    // MuJoCo allows each file to be included once in the whole model ("already included").
    let dir = temp_dir("twice");
    std::fs::write(dir.join("part.xml"), "<mujoco>\n  <worldbody/>\n</mujoco>\n").unwrap();
    let main = "<mujoco>\n  <include file=\"part.xml\"/>\n  <include file=\"part.xml\"/>\n</mujoco>\n";
    let e = parse_str(main, &dir, "main.xml").expect_err("second include must fail");
    assert_eq!((e.pos.line, e.pos.col), (3, 3), "{e}");
    assert!(e.message.contains("already included"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nested_include_error_points_into_the_included_file() {
    let dir = temp_dir("nested");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    // main includes sub/mid.xml; mid.xml includes leaf.xml, found beside mid.xml (MuJoCo tries
    // the main file's directory first, then the including file's directory).
    std::fs::write(dir.join("sub/mid.xml"), "<mujoco>\n  <include file=\"leaf.xml\"/>\n</mujoco>\n").unwrap();
    std::fs::write(
        dir.join("sub/leaf.xml"),
        "<mujoco>\n  <worldbody>\n    <geom size=\"1\" pos=\"1 2\"/>\n  </worldbody>\n</mujoco>\n",
    )
    .unwrap();
    let main = "<mujoco>\n  <include file=\"sub/mid.xml\"/>\n</mujoco>\n";
    let e = parse_str(main, &dir, "main.xml").expect_err("bad pos in leaf.xml");
    assert!(e.pos.file.ends_with("sub/leaf.xml"), "{e}");
    assert_eq!((e.pos.line, e.pos.col), (3, 20), "{e}");
    assert!(e.message.contains("expected 3 real numbers"), "{e}");
    // Fixed leaf: the geom replaces the includes, in place.
    std::fs::write(
        dir.join("sub/leaf.xml"),
        "<mujoco>\n  <worldbody>\n    <geom size=\"1\"/>\n  </worldbody>\n</mujoco>\n",
    )
    .unwrap();
    let root = parse_str(main, &dir, "main.xml").expect("nested include reads");
    assert_eq!(root.children.len(), 1);
    assert_eq!(root.children[0].name, "worldbody");
    assert_eq!(root.children[0].children[0].pos.line, 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn empty_include_file() {
    let dir = temp_dir("empty");
    std::fs::write(dir.join("empty.xml"), "<mujoco/>\n").unwrap();
    let e =
        parse_str("<mujoco>\n  <include file=\"empty.xml\"/>\n</mujoco>", &dir, "main.xml").expect_err("empty include");
    assert_eq!((e.pos.line, e.pos.col), (2, 3), "{e}");
    assert!(e.message.contains("no elements inside its root"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn syntax_error_in_included_file() {
    let dir = temp_dir("syntax");
    std::fs::write(dir.join("bad.xml"), "<mujoco>\n  <worldbody>\n  </mujoco>\n").unwrap();
    let e = parse_str("<mujoco>\n  <include file=\"bad.xml\"/>\n</mujoco>", &dir, "main.xml").expect_err("bad include");
    assert!(e.pos.file.ends_with("bad.xml"), "{e}");
    assert_eq!((e.pos.line, e.pos.col), (3, 3), "{e}");
    assert!(e.message.contains("mismatched end tag"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_main_file() {
    let e = parse_file(Path::new("/nonexistent/specula/model.xml")).expect_err("missing file");
    assert_eq!(e.pos.line, 0, "whole-file errors have line 0: {e}");
    assert!(e.message.contains("cannot read MJCF file"), "{e}");
}

// ---- values that MuJoCo accepts -----------------------------------------------------------------

#[test]
fn numbers_as_mujoco_reads_them() {
    // Accepted by MuJoCo 4.0.0 (probed with mujoco.MjModel.from_xml_string on <geom pos=...>):
    // exponents, leading '.', leading '+', trailing '.', hex, inf/nan spellings; blank = absent.
    let xml =
        world("<geom size=\"1\" pos=\"1e-3 -.5 +1\" fromto=\"1. 0x10 0x1.8p1 -inf INF nan\"/>\n    <site pos=\" \"/>");
    let root = parse_str(&xml, Path::new("."), "t.xml").expect("valid numbers");
    let geom = &root.children[0].children[0];
    assert_eq!(geom.reals_n::<3>("pos").unwrap(), Some([1e-3, -0.5, 1.0]));
    let v = geom.reals("fromto").unwrap().unwrap();
    assert_eq!(&v[..5], &[1.0, 16.0, 3.0, f64::NEG_INFINITY, f64::INFINITY]);
    assert!(v[5].is_nan());
    assert_eq!(geom.real("size").unwrap(), Some(1.0));
    let site = &root.children[0].children[1];
    assert_eq!(site.reals("pos").unwrap(), None, "a blank value counts as absent");
}

#[test]
fn nan_is_read_but_can_be_refused() {
    // MuJoCo reads "nan" (with a warning); the compiler refuses it where MuJoCo does (geom size).
    let root = parse_str(&world("<geom size=\"nan\"/>"), Path::new("."), "t.xml").expect("NaN reads");
    let geom = &root.children[0].children[0];
    assert!(geom.real("size").unwrap().is_some_and(f64::is_nan));
    let e = geom.reals_not_nan("size").expect_err("NaN refused");
    assert_eq!((e.pos.line, e.pos.col), (3, 11), "{e}");
    assert!(e.message.contains("value 1 is NaN"), "{e}");
}

#[test]
fn typed_accessors() {
    let xml = world("<body mocap=\"true\"><geom type=\"box\" size=\"1 2 3\" condim=\"+4\" rgba=\"1 0 0 1\"/></body>");
    let root = parse_str(&xml, Path::new("."), "t.xml").expect("valid");
    let body = &root.children[0].children[0];
    assert_eq!(body.bool("mocap").unwrap(), Some(true));
    let geom = &body.children[0];
    assert_eq!(geom.keyword("type", &["plane", "sphere", "box"]).unwrap(), Some(2));
    assert_eq!(geom.int("condim").unwrap(), Some(4));
    assert_eq!(geom.ints("contype").unwrap(), None);
    assert_eq!(geom.string("type"), Some("box"));
    // Asking for the wrong count is an error at the attribute.
    let e = geom.reals_n::<2>("size").expect_err("three values, not two");
    // `size` is at column 41: 4 spaces, `<body mocap="true">` (19), `<geom type="box" ` (17).
    assert_eq!((e.pos.line, e.pos.col), (3, 41), "{e}");
}

#[test]
fn entities_resolved_like_tinyxml2() {
    // Predefined entities and character references are resolved; unknown ones stay literal
    // (MuJoCo 4.0.0 names the model "a&foo;b" for model="a&foo;b").
    let root = parse_str("<mujoco model=\"a&amp;b&#65;&#x42;&foo;\"/>", Path::new("."), "t.xml").expect("valid");
    assert_eq!(root.string("model"), Some("a&bAB&foo;"));
}

#[test]
fn prolog_comments_and_instructions_are_ignored() {
    // An XML declaration, a DOCTYPE with an internal subset and comments with "--" (tinyxml2
    // allows it) are all skipped; text content is kept, trimmed. (A processing instruction inside
    // an element is an error in tinyxml2, see `declaration_after_the_first_node`.)
    let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE mujoco [<!ENTITY x \"1\">]>\n<!-- a -- b -->\n\
               <mujoco model=\"&x;\"><custom><text name=\"t\" data=\"d\"> hi <![CDATA[<raw>]]> </text></custom></mujoco>";
    let root = parse_str(xml, Path::new("."), "t.xml").expect("valid");
    // tinyxml2 does not expand DTD entities: MuJoCo keeps "&x;" literally.
    assert_eq!(root.string("model"), Some("&x;"));
    assert_eq!(root.pos.line, 4);
    let text = &root.children[0].children[0];
    assert_eq!(text.text, "hi <raw>");
}

#[test]
fn attribute_syntax_variants() {
    // Single quotes, spaces around '=', '>' inside a value, newlines inside a tag: all valid XML.
    let xml = "<mujoco model = 'a>b'\n  ><worldbody\n><geom\n size=\"1\"\tpos='0 0 1'/></worldbody></mujoco>";
    let root = parse_str(xml, Path::new("."), "t.xml").expect("valid");
    assert_eq!(root.string("model"), Some("a>b"));
    let geom = &root.children[0].children[0];
    // `size` is on line 4, column 2; `pos` after a tab at column 11.
    assert_eq!((geom.attrs[0].pos.line, geom.attrs[0].pos.col), (4, 2));
    assert_eq!((geom.attrs[1].pos.line, geom.attrs[1].pos.col), (4, 11));
    assert_eq!(geom.reals_n::<3>("pos").unwrap(), Some([0.0, 0.0, 1.0]));
}

#[test]
fn columns_count_characters_along_one_long_line_of_non_ascii_names() {
    // Every element and attribute on this one line gets a position before the error's; the
    // error's column counts the three 'é' before it as characters (bytes would be 3 more).
    let xml = "<mujoco model=\"é\"><worldbody><body name=\"é1\"/><body name=\"é2\"><geom size=\"1\" zzz=\"2\"/></body></worldbody></mujoco>";
    let byte = xml.find("zzz").unwrap();
    assert_eq!(byte + 1, 81, "the snippet changed");
    check(xml, 1, 78, &["zzz"]);
}
