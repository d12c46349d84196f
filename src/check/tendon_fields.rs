//! The tendon fields of the Rust model, by MuJoCo's names (`ten_J_*` and `nJten` spelled as
//! MuJoCo spells them).

use super::compare::Field;
use super::flat::flat;

/// Array fields of the Rust model compared with `mjModel`'s arrays of the same name.
macro_rules! tendon_arrays {
    ($m:expr; $($name:ident),* $(,)?) => {
        vec![$({ let (v, c) = flat(&$m.$name); Field::new(stringify!($name), v, c) }),*]
    };
}

/// The tendon and wrap fields of a model whose tendons specula compiled.
pub fn rust_tendon_fields(m: &specula_model::Model) -> Vec<Field> {
    let mut out = vec![Field::new("nwrap", vec![m.nwrap as f64], 1), Field::new("nJten", vec![m.njten as f64], 1)];
    for (name, rows) in
        [("ten_J_rownnz", &m.ten_j_rownnz), ("ten_J_rowadr", &m.ten_j_rowadr), ("ten_J_colind", &m.ten_j_colind)]
    {
        let (v, c) = flat(rows);
        out.push(Field::new(name, v, c));
    }
    out.extend(tendon_arrays!(m;
        tendon_adr, tendon_num, tendon_matid, tendon_group, tendon_actuatorid, tendon_plasticadr,
        tendon_treenum, tendon_treeid, tendon_limited, tendon_actfrclimited, tendon_width, tendon_solref_lim,
        tendon_solimp_lim, tendon_solref_fri, tendon_solimp_fri, tendon_range, tendon_actfrcrange,
        tendon_margin, tendon_stiffness, tendon_stiffnesspoly, tendon_damping, tendon_dampingpoly,
        tendon_armature, tendon_frictionloss, tendon_lengthspring, tendon_springyield, tendon_length0,
        tendon_rgba, wrap_type, wrap_objid, wrap_prm,
    ));
    out
}
