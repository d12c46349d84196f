//! `custom` numeric fields, as MuJoCo 4.0.0 compiles them.
//!
//! Reference (Python `mujoco` 4.0.0): `<numeric name="a" data="1 2"/><numeric name="b" size="4"
//! data="3"/><numeric name="c" size="2"/>` gives `numeric_adr [0 2 6]`, `numeric_size [2 4 2]`,
//! `numeric_data [1 2 3 0 0 0 0 0]`; `size="1" data="1 2"` is "attribute 'data' has too much
//! data"; no data and no size, or `size="0"`, is "custom field size must be positive".

use specula_model::load_str;
use std::path::Path;

fn compile(custom: &str) -> Result<specula_model::Model, specula_model::MjcfError> {
    load_str(&format!("<mujoco>\n<custom>\n{custom}\n</custom>\n</mujoco>"), Path::new("."), "custom.xml")
}

#[test]
fn sizes_default_to_the_data_and_pad_with_zeros() {
    let m =
        compile(r#"<numeric name="a" data="1 2"/><numeric name="b" size="4" data="3"/><numeric name="c" size="2"/>"#)
            .unwrap();
    assert_eq!(m.nnumeric, 3);
    assert_eq!(m.numeric_adr, [0, 2, 6]);
    assert_eq!(m.numeric_size, [2, 4, 2]);
    assert_eq!(m.numeric_data, [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(m.numeric("b"), Some(&[3.0, 0.0, 0.0, 0.0][..]));
    assert_eq!(m.numeric("d"), None);
    assert!(!m.asks_robust());
}

#[test]
fn bad_sizes_name_the_element() {
    for (body, what) in [
        (r#"<numeric name="a" size="1" data="1 2"/>"#, "too much data"),
        (r#"<numeric name="a"/>"#, "size must be positive"),
        (r#"<numeric name="a" size="0" data=""/>"#, "size must be positive"),
        (r#"<numeric name="a" data="1 x"/>"#, "data"),
    ] {
        let e = compile(body).expect_err(body).to_string();
        assert!(e.contains("custom.xml:3:") && e.contains(what), "{body}: {e}");
    }
}

#[test]
fn robust_mode_is_asked_for_by_a_nonzero_specula_robust() {
    assert!(compile(r#"<numeric name="specula_robust" data="1"/>"#).unwrap().asks_robust());
    assert!(!compile(r#"<numeric name="specula_robust" data="0"/>"#).unwrap().asks_robust());
    assert!(!compile(r#"<numeric name="specula_robustness" data="1"/>"#).unwrap().asks_robust());
}
