//! `custom` numeric fields: named arrays of numbers that MuJoCo stores for the user
//! (`numeric_adr`, `numeric_size`, `numeric_data`) and otherwise ignores. specula reads one of
//! them itself: `specula_robust` (see [`crate::model::Model::asks_robust`]).

use super::attrs::{err_at, int, nums, Res};
use crate::model::Model;
use crate::xml::Element;

/// Reads the `numeric` elements of a `custom` section into the model's numeric arrays.
///
/// As MuJoCo 4.0.0 compiles them (probed with Python `mujoco`): `size` defaults to the number
/// of values in `data` and pads with zeros; more values than `size` is "too much data"; a size
/// that ends up 0 (no data, or `size="0"`) is an error.
pub fn read_custom(el: &Element, m: &mut Model) -> Res<()> {
    for n in el.children.iter().filter(|c| c.name == "numeric") {
        let name = n.attr("name").map(|a| a.value.clone()).unwrap_or_default();
        let data = match n.attr("data") {
            Some(a) => nums(a)?,
            None => Vec::new(),
        };
        let mut size = data.len() as i64;
        let mut given = 0;
        if int(n, "size", &mut given)? {
            if i64::from(given) < size {
                return Err(err_at(n, "attribute 'data' has too much data"));
            }
            size = i64::from(given);
        }
        if size <= 0 {
            return Err(err_at(n, "custom field size must be positive"));
        }
        if m.numeric_names.contains(&name) {
            return Err(err_at(n, format!("repeated name '{name}' in numeric")));
        }
        m.numeric_adr.push(m.numeric_data.len());
        m.numeric_size.push(size as usize);
        m.numeric_data.extend(&data);
        m.numeric_data.resize(m.numeric_data.len() + size as usize - data.len(), 0.0);
        m.numeric_names.push(name);
    }
    m.nnumeric = m.numeric_names.len();
    Ok(())
}
