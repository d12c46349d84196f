//! The trees of equality rows for `mj_island` (`docs/measurements.md` D52): a connect's or
//! weld's two bodies' trees, as the library takes them without reading the Jacobian; a joint
//! equality's trees come from the scan of its Jacobian row ([`super::island_scan`]), the
//! library's generic path.

use super::constraint::equality::{CONNECT, WELD};

/// `mjOBJ_SITE`.
const OBJ_SITE: i32 = 6;

/// The equality model arrays the island stage reads (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct IslandEquality<'a> {
    /// Type of each equality (`mjtEq`).
    pub eq_type: &'a [i32],
    /// First object of each equality.
    pub eq_obj1id: &'a [i32],
    /// Second object of each equality.
    pub eq_obj2id: &'a [i32],
    /// Object type of each equality (`mjtObj`).
    pub eq_objtype: &'a [i32],
    /// Body of each site.
    pub site_bodyid: &'a [i32],
}

/// An index into `a` from a MuJoCo id, `None` when the id is outside it.
fn at(a: &[i32], id: i32) -> Option<i32> {
    usize::try_from(id).ok().and_then(|i| a.get(i).copied())
}

/// Whether equality `id`'s rows take their trees from its two bodies (connect and weld) rather
/// than from a scan of the Jacobian (`island_scan`, the library's generic path).
pub fn by_bodies(eq: &IslandEquality, id: i32) -> bool {
    matches!(at(eq.eq_type, id), Some(CONNECT | WELD))
}

/// The trees a connect or weld row of equality `id` joins, its two bodies' trees (-1 for a
/// static side); `None` for another kind or an id outside the arrays.
pub fn equality_trees(body_treeid: &[i32], eq: &IslandEquality, id: i32) -> Option<(i32, i32)> {
    if !by_bodies(eq, id) {
        return None;
    }
    let (mut b1, mut b2) = (at(eq.eq_obj1id, id)?, at(eq.eq_obj2id, id)?);
    if at(eq.eq_objtype, id)? == OBJ_SITE {
        (b1, b2) = (at(eq.site_bodyid, b1)?, at(eq.site_bodyid, b2)?);
    }
    Some((at(body_treeid, b1)?, at(body_treeid, b2)?))
}
