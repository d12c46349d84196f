//! `mj_island` for the rigid subset: the constraint islands (groups of kinematic trees coupled
//! by constraint rows) and the maps between the global dof and row orderings and the
//! island-major ones, as MuJoCo 4.0.0 builds them from the rows `mj_makeConstraint` wrote
//! (`docs/measurements.md` D12). Rows of dof friction, joint limits, geom-geom contacts,
//! connects and welds name their trees directly (the library never reads the Jacobian for
//! them), joint equalities through a scan of their Jacobian row (D52,
//! [`super::island_equality`]); tendon and flex rows, and the flex and discrete-integrator
//! couplings, are the library's: the caller keeps those models away, and [`partition`] refuses
//! any other row it meets.
//!
//! The work is split in two so that the caller can lay out the arena between them: the
//! partition gives the island and dof counts the arena arrays are sized by, [`fill`] then writes
//! those arrays.
// The indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use super::constraint::cnstr;

/// The model arrays the island stage reads (MuJoCo's names; `nv` from `dof_treeid`, `ntree`
/// from `tree_dofnum`).
#[derive(Clone, Copy, Debug, Default)]
pub struct IslandModel<'a> {
    /// Tree of each dof (`nv`).
    pub dof_treeid: &'a [i32],
    /// First dof of each joint (`njnt`).
    pub jnt_dofadr: &'a [i32],
    /// Tree of each body, -1 for a static body (`nbody`).
    pub body_treeid: &'a [i32],
    /// Body of each geom (`ngeom`).
    pub geom_bodyid: &'a [i32],
    /// Number of dofs of each tree (`ntree`).
    pub tree_dofnum: &'a [i32],
    /// The equality constraints' objects.
    pub equality: super::island_equality::IslandEquality<'a>,
}

impl IslandModel<'_> {
    /// Number of kinematic trees.
    pub fn ntree(&self) -> usize {
        self.tree_dofnum.len()
    }

    /// Number of degrees of freedom.
    pub fn nv(&self) -> usize {
        self.dof_treeid.len()
    }
}

/// The constraint rows the islands are built from (`nefc` entries each) and the geoms of each
/// contact (`ncon`).
#[derive(Clone, Copy, Debug, Default)]
pub struct IslandRows<'a> {
    /// Constraint type of each row (`mjtConstraint`).
    pub efc_type: &'a [i32],
    /// Object of each row: dof, joint or contact.
    pub efc_id: &'a [i32],
    /// Friction loss of each row.
    pub efc_frictionloss: &'a [f64],
    /// Constraint mass of each row.
    pub efc_d: &'a [f64],
    /// Regulariser of each row.
    pub efc_r: &'a [f64],
    /// The two geoms of each contact (-1 for a flex side).
    pub contact_geom: &'a [[i32; 2]],
    /// The Jacobian, for the rows whose trees come from a scan of it.
    pub jac: super::island_equality::RowJacobian<'a>,
}

/// A row the Rust stage does not handle, or an input the library reports as an error (a
/// constraint without a dynamic tree): the whole call is left to MuJoCo's function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The row.
    pub row: usize,
}

/// The sizes the partition found, which the island arrays are allocated by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Partition {
    /// Number of islands.
    pub nisland: usize,
    /// Number of dofs in some island.
    pub nidof: usize,
}

/// Buffers reused from call to call: the library's stack arrays.
#[derive(Debug, Default)]
pub struct IslandScratch {
    /// Tree each row is attributed to (`nefc`).
    efc_tree: Vec<i32>,
    /// Union-find parent of each tree, -1 for a tree no row touches (`ntree`).
    parent: Vec<i32>,
    /// Island of each tree, -1 for none (`ntree`).
    tree_island: Vec<i32>,
    /// Per-island fill counters plus one for the unconstrained entries (`nisland + 1`).
    count: Vec<i32>,
    /// Dofs in some island, as the partition summed them over its trees.
    nidof: i32,
}

/// The island arrays [`fill`] writes (MuJoCo's names and lengths).
#[derive(Debug)]
pub struct IslandOutput<'a> {
    /// Island of each tree, -1 for none (`ntree`).
    pub tree_island: &'a mut [i32],
    /// Trees per island (`nisland`).
    pub island_ntree: &'a mut [i32],
    /// First island-ordered tree of each island (`nisland`).
    pub island_itreeadr: &'a mut [i32],
    /// Tree at each island-ordered position, unconstrained trees last (`ntree`).
    pub map_itree2tree: &'a mut [i32],
    /// Island of each dof, -1 for none (`nv`).
    pub dof_island: &'a mut [i32],
    /// Dofs per island (`nisland`).
    pub island_nv: &'a mut [i32],
    /// First island-ordered dof of each island (`nisland`).
    pub island_idofadr: &'a mut [i32],
    /// First global dof of each island (`nisland`).
    pub island_dofadr: &'a mut [i32],
    /// Island-ordered index of each dof (`nv`).
    pub map_dof2idof: &'a mut [i32],
    /// Dof at each island-ordered index (`nv`).
    pub map_idof2dof: &'a mut [i32],
    /// Island of each row (`nefc`).
    pub efc_island: &'a mut [i32],
    /// Equality rows per island (`nisland`).
    pub island_ne: &'a mut [i32],
    /// Friction rows per island (`nisland`).
    pub island_nf: &'a mut [i32],
    /// Rows per island (`nisland`).
    pub island_nefc: &'a mut [i32],
    /// First island-ordered row of each island (`nisland`).
    pub island_iefcadr: &'a mut [i32],
    /// Island-ordered index of each row (`nefc`).
    pub map_efc2iefc: &'a mut [i32],
    /// Row at each island-ordered index (`nefc`).
    pub map_iefc2efc: &'a mut [i32],
    /// `efc_type` in island order (`nefc`).
    pub iefc_type: &'a mut [i32],
    /// `efc_id` in island order (`nefc`).
    pub iefc_id: &'a mut [i32],
    /// `efc_frictionloss` in island order (`nefc`).
    pub iefc_frictionloss: &'a mut [f64],
    /// `efc_D` in island order (`nefc`).
    pub iefc_d: &'a mut [f64],
    /// `efc_R` in island order (`nefc`).
    pub iefc_r: &'a mut [f64],
}

/// The union-find root of `tree` (an active tree), every tree on the way re-linked to it.
fn root(parent: &mut [i32], tree: i32) -> i32 {
    let mut r = tree;
    while parent[r as usize] != r {
        r = parent[r as usize];
    }
    let mut t = tree;
    while parent[t as usize] != t {
        let next = parent[t as usize];
        parent[t as usize] = r;
        t = next;
    }
    r
}

/// Activates two trees a row touches and joins their sets (-1 for a static side; not both),
/// the larger root under the smaller as in the library's `mj_dsuMerge`, so that every root is
/// the smallest tree of its set.
fn merge(parent: &mut [i32], tree1: i32, tree2: i32) {
    let (t1, t2) = match (tree1, tree2) {
        (-1, t) => (t, t),
        (t, -1) => (t, t),
        pair => pair,
    };
    for t in [t1, t2] {
        if parent[t as usize] == -1 {
            parent[t as usize] = t;
        }
    }
    if parent[t1 as usize] == parent[t2 as usize] {
        return;
    }
    let (r1, r2) = (root(parent, t1), root(parent, t2));
    if r1 < r2 {
        parent[r2 as usize] = r1;
    } else if r2 < r1 {
        parent[r1 as usize] = r2;
    }
}

/// An index into `a` from a MuJoCo id, `None` when the id is outside it.
fn at(a: &[i32], id: i32) -> Option<i32> {
    usize::try_from(id).ok().and_then(|i| a.get(i).copied())
}

/// The trees of row `i`'s constraint: the one tree of a dof friction or joint limit row (the
/// second -1), the two sides of a geom-geom contact; `None` for any other row.
fn row_trees(m: &IslandModel, rows: &IslandRows, kind: i32, id: i32, row: usize) -> Option<(i32, i32)> {
    match kind {
        cnstr::EQUALITY => super::island_equality::equality_trees(
            m.dof_treeid,
            m.body_treeid,
            m.tree_dofnum,
            &m.equality,
            &rows.jac,
            id,
            row,
        ),
        cnstr::FRICTION_DOF => Some((at(m.dof_treeid, id)?, -1)),
        cnstr::LIMIT_JOINT => Some((at(m.dof_treeid, at(m.jnt_dofadr, id)?)?, -1)),
        cnstr::CONTACT_FRICTIONLESS | cnstr::CONTACT_PYRAMIDAL | cnstr::CONTACT_ELLIPTIC => {
            let geom = *rows.contact_geom.get(usize::try_from(id).ok()?)?;
            // a flex side: the library gathers the bodies of the flex's vertices instead
            if geom[0] < 0 || geom[1] < 0 {
                return None;
            }
            let tree = |g: i32| at(m.body_treeid, at(m.geom_bodyid, g)?);
            Some((tree(geom[0])?, tree(geom[1])?))
        }
        _ => None,
    }
}

/// Joins the trees every row touches and numbers the resulting sets in the order of their
/// smallest tree (the library's `mj_dsuAssign`); keeps in `s` the tree each row is attributed
/// to and the island of each tree for [`fill`].
pub fn partition(m: &IslandModel, rows: &IslandRows, s: &mut IslandScratch) -> Result<Partition, Unsupported> {
    let (nefc, ntree) = (rows.efc_type.len(), m.ntree());
    s.efc_tree.clear();
    s.efc_tree.resize(nefc, 0);
    s.parent.clear();
    s.parent.resize(ntree, -1);
    let valid = |t: i32| t < ntree as i32;
    let (mut kind, mut id) = (-1, -1);
    for i in 0..nefc {
        // the further rows of one constraint (a contact's cone rows) share its tree
        if i > 0 && rows.efc_type[i] == kind && rows.efc_id[i] == id {
            s.efc_tree[i] = s.efc_tree[i - 1];
            continue;
        }
        (kind, id) = (rows.efc_type[i], rows.efc_id[i]);
        let (tree1, tree2) = row_trees(m, rows, kind, id, i).ok_or(Unsupported { row: i })?;
        // the row belongs to its first dynamic side; a row between two static sides (or a
        // tree id out of range) is the library's error
        let tree = if tree1 >= 0 { tree1 } else { tree2 };
        if tree < 0 || !valid(tree1) || !valid(tree2) || tree2 < -1 {
            return Err(Unsupported { row: i });
        }
        s.efc_tree[i] = tree;
        merge(&mut s.parent, tree, if tree1 < 0 { -1 } else { tree2 });
    }
    s.tree_island.clear();
    s.tree_island.resize(ntree, -1);
    let (mut nisland, mut nidof) = (0i32, 0i32);
    for tree in 0..ntree {
        let p = s.parent[tree];
        if p == -1 {
            continue;
        }
        if p == tree as i32 {
            s.tree_island[tree] = nisland;
            nisland += 1;
        } else {
            // the parent is a smaller tree, already pointed at its root
            let r = s.parent[p as usize];
            s.parent[tree] = r;
            s.tree_island[tree] = s.tree_island[r as usize];
        }
        nidof = nidof.wrapping_add(m.tree_dofnum[tree]);
    }
    s.nidof = nidof;
    Ok(Partition { nisland: nisland as usize, nidof: nidof.max(0) as usize })
}

/// Running sums: `adr[0] = 0`, `adr[k] = adr[k-1] + n[k-1]`.
fn addresses(n: &[i32], adr: &mut [i32]) {
    if let Some(first) = adr.first_mut() {
        *first = 0;
    }
    for k in 1..adr.len() {
        adr[k] = adr[k - 1] + n[k - 1];
    }
}

/// Writes the island arrays for the partition [`partition`] left in `s` (`nisland` > 0), in
/// the library's order: trees, then dofs, then rows.
pub fn fill(m: &IslandModel, rows: &IslandRows, s: &mut IslandScratch, o: &mut IslandOutput) {
    let (ntree, nv, nefc) = (m.ntree(), m.nv(), rows.efc_type.len());
    let nisland = o.island_ntree.len();
    let tree_island = &s.tree_island[..ntree];
    let count = &mut s.count;
    count.clear();
    count.resize(nisland + 1, 0);

    // trees: counts, addresses, then the island-ordered list with the unconstrained trees last
    o.tree_island.copy_from_slice(tree_island);
    o.island_ntree.fill(0);
    for &island in tree_island {
        if island >= 0 {
            o.island_ntree[island as usize] += 1;
        }
    }
    addresses(o.island_ntree, o.island_itreeadr);
    let last_tree = o.island_itreeadr[nisland - 1] + o.island_ntree[nisland - 1];
    for tree in 0..ntree {
        let island = tree_island[tree];
        let slot = if island >= 0 {
            let k = island as usize;
            count[k] += 1;
            o.island_itreeadr[k] + count[k] - 1
        } else {
            count[nisland] += 1;
            last_tree + count[nisland] - 1
        };
        o.map_itree2tree[slot as usize] = tree as i32;
    }

    // dofs: each dof takes its tree's island; the constrained ones first, in island order
    o.island_nv.fill(0);
    for dof in 0..nv {
        let island = tree_island[m.dof_treeid[dof] as usize];
        o.dof_island[dof] = island;
        if island >= 0 {
            o.island_nv[island as usize] += 1;
        }
    }
    addresses(o.island_nv, o.island_idofadr);
    let nidof = s.nidof;
    count.fill(0);
    for dof in 0..nv {
        let island = o.dof_island[dof];
        let idof = if island >= 0 {
            let k = island as usize;
            count[k] += 1;
            o.island_idofadr[k] + count[k] - 1
        } else {
            count[nisland] += 1;
            nidof + count[nisland] - 1
        };
        o.map_dof2idof[dof] = idof;
        o.map_idof2dof[idof as usize] = dof as i32;
    }
    for k in 0..nisland {
        o.island_dofadr[k] = o.map_idof2dof[o.island_idofadr[k] as usize];
    }

    // rows: per-island counts (equality rows, dof and tendon friction rows), addresses, then
    // the island-ordered copies
    o.island_ne.fill(0);
    o.island_nf.fill(0);
    o.island_nefc.fill(0);
    for i in 0..nefc {
        let island = tree_island[s.efc_tree[i] as usize];
        o.efc_island[i] = island;
        let k = island as usize;
        o.island_nefc[k] += 1;
        match rows.efc_type[i] {
            cnstr::EQUALITY => o.island_ne[k] += 1,
            cnstr::FRICTION_DOF | cnstr::FRICTION_TENDON => o.island_nf[k] += 1,
            _ => {}
        }
    }
    addresses(o.island_nefc, o.island_iefcadr);
    count.fill(0);
    // every destination cut to nefc, so that one test of the scattered index covers them all
    let n = nefc;
    let (map, kind, id) = (&mut o.map_iefc2efc[..n], &mut o.iefc_type[..n], &mut o.iefc_id[..n]);
    let (loss, d, r) = (&mut o.iefc_frictionloss[..n], &mut o.iefc_d[..n], &mut o.iefc_r[..n]);
    let src = rows.efc_type[..n].iter().zip(&rows.efc_id[..n]).zip(&rows.efc_frictionloss[..n]);
    let src = src.zip(&rows.efc_d[..n]).zip(&rows.efc_r[..n]);
    let islands = o.efc_island[..n].iter().zip(&mut o.map_efc2iefc[..n]);
    for (c, (((((&t, &i), &fl), &dc), &rc), (&island, e2i))) in src.zip(islands).enumerate() {
        let k = island as usize;
        count[k] += 1;
        let ic = (o.island_iefcadr[k] + count[k] - 1) as usize;
        *e2i = ic as i32;
        if ic >= n {
            continue;
        }
        map[ic] = c as i32;
        kind[ic] = t;
        id[ic] = i;
        loss[ic] = fl;
        d[ic] = dc;
        r[ic] = rc;
    }
}
