//! The sparse layouts MuJoCo 4.0.0's compiler stores at the end of compilation, from the dof and
//! body trees alone: `dof_simplenum`, the row-sparse lower-triangular inertia `M_*` (reduced:
//! a simple dof keeps only its diagonal), the symmetric dof-dof pattern `D_*` (every ancestor and
//! descendant), the body-dof pattern `B_*` (subtree and ancestor dofs of each body) and the index
//! maps `mapM2D`, `mapD2M` and `mapM2M` between them (`docs/measurements.md` N1).
//!
//! Every row lists its columns in increasing order. The maps are gathers: `mapM2D[k]` is the
//! element of `M` (lower triangle) that entry `k` of `D` mirrors or copies, -1 where the reduced
//! `M` holds nothing there; `mapD2M[k]` the element of `D` for entry `k` of `M`; `mapM2M[k]` the
//! element of the legacy per-dof layout (`dof_Madr`: diagonal first, then the ancestors from
//! the nearest) for entry `k` of `M`.

// Indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use specula_model::Model;

/// A row-sparse integer pattern: row lengths, row starts and the column of each entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    /// Entries of each row.
    pub rownnz: Vec<i32>,
    /// First entry of each row.
    pub rowadr: Vec<i32>,
    /// Column of each entry, increasing within a row.
    pub colind: Vec<i32>,
}

impl Pattern {
    /// Number of entries.
    pub fn nnz(&self) -> usize {
        self.colind.len()
    }

    /// Row starts from the row lengths.
    fn from_rownnz(rownnz: Vec<i32>) -> Pattern {
        let mut rowadr = Vec::with_capacity(rownnz.len());
        let mut adr = 0;
        for &n in &rownnz {
            rowadr.push(adr);
            adr += n;
        }
        Pattern { rownnz, rowadr, colind: vec![0; adr as usize] }
    }
}

/// The compiler's sparse layouts of one model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Consecutive simple dofs starting at each dof, counted towards the last (`nv`).
    pub dof_simplenum: Vec<i32>,
    /// Reduced lower-triangular inertia pattern (`nC` entries).
    pub m: Pattern,
    /// The same pattern with every ancestor kept (the legacy `nM` entries, in CSR order); the
    /// pass at `qpos0` uses it for the full diagonal `dof_M0`.
    pub m_full: Pattern,
    /// Symmetric dof-dof pattern (`nD` entries).
    pub d: Pattern,
    /// Position of the diagonal within each row of `D` (`nv`).
    pub d_diag: Vec<i32>,
    /// Body-dof pattern (`nB` entries).
    pub b: Pattern,
    /// `D` entry to `M` entry, -1 for none (`nD`).
    pub map_m2d: Vec<i32>,
    /// `M` entry to `D` entry (`nC`).
    pub map_d2m: Vec<i32>,
    /// `M` entry to legacy `dof_Madr` entry (`nC`).
    pub map_m2m: Vec<i32>,
}

/// The dofs from `i`'s parent up to its tree's root, nearest first.
fn ancestors(parent: &[i32], i: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(usize::try_from(parent[i]).ok(), move |&j| usize::try_from(parent[j]).ok())
}

/// The dof-dof pattern: lower triangle (`upper` false) or both triangles, a simple dof reduced to
/// its diagonal when `reduced`.
fn dof_pattern(parent: &[i32], simplenum: &[i32], reduced: bool, upper: bool) -> Pattern {
    let nv = parent.len();
    let keeps = |i: usize| !(reduced && simplenum[i] != 0);
    let mut rownnz = vec![1; nv];
    for i in 0..nv {
        if keeps(i) {
            for j in ancestors(parent, i) {
                rownnz[i] += 1;
                if upper {
                    rownnz[j] += 1;
                }
            }
        }
    }
    let mut p = Pattern::from_rownnz(rownnz);
    // filled from each row's end: a dof's row gets itself, then its ancestors nearest first
    // (so a row's columns come out increasing); descendants land in the ancestors' rows from the
    // last dof down, also increasing
    let mut left = p.rownnz.clone();
    for i in (0..nv).rev() {
        left[i] -= 1;
        p.colind[(p.rowadr[i] + left[i]) as usize] = i as i32;
        if keeps(i) {
            for j in ancestors(parent, i) {
                left[i] -= 1;
                p.colind[(p.rowadr[i] + left[i]) as usize] = j as i32;
                if upper {
                    left[j] -= 1;
                    p.colind[(p.rowadr[j] + left[j]) as usize] = i as i32;
                }
            }
        }
    }
    p
}

/// The body-dof pattern: each body's row holds the dofs of its subtree and of its ancestors.
fn body_pattern(m: &Model) -> Pattern {
    let nbody = m.nbody;
    let mut cols: Vec<Vec<i32>> = vec![Vec::new(); nbody];
    let own = |b: usize| (0..m.body_dofnum[b]).map(move |k| m.body_dofadr[b] + k as i32);
    // subtrees, leaves first (children follow their parents)
    for b in (1..nbody).rev() {
        let mut sub: Vec<i32> = own(b).collect();
        sub.extend_from_slice(&cols[b]);
        cols[b] = sub.clone();
        let p = m.body_parentid[b];
        cols[p].extend(sub);
    }
    for (b, row) in cols.iter_mut().enumerate() {
        let mut p = m.body_parentid[b];
        while p > 0 {
            row.extend(own(p));
            p = m.body_parentid[p];
        }
        row.sort_unstable();
    }
    let mut pat = Pattern::from_rownnz(cols.iter().map(|c| c.len() as i32).collect());
    pat.colind = cols.concat();
    pat
}

/// For every entry of `res`, the entry of `src` in the same row and column (`src`'s pattern
/// holds `res`'s).
fn gather_map(res: &Pattern, src: &Pattern) -> Vec<i32> {
    let mut map = vec![0; res.nnz()];
    for i in 0..res.rownnz.len() {
        let (rs, re) = (res.rowadr[i] as usize, (res.rowadr[i] + res.rownnz[i]) as usize);
        let mut s = src.rowadr[i] as usize;
        let se = s + src.rownnz[i] as usize;
        for k in rs..re {
            while s < se && src.colind[s] < res.colind[k] {
                s += 1;
            }
            map[k] = s as i32;
            s += 1;
        }
    }
    map
}

/// For every entry of the symmetric `res`, the entry of the lower-triangular `src` at it or at
/// its mirror; -1 where `src` holds neither.
fn lower_to_sym_map(res: &Pattern, src: &Pattern) -> Vec<i32> {
    let mut map = vec![-1; res.nnz()];
    let find = |row: usize, col: i32| {
        let s = res.rowadr[row] as usize;
        (s..s + res.rownnz[row] as usize).find(|&c| res.colind[c] == col)
    };
    for i in 0..src.rownnz.len() {
        let s = src.rowadr[i] as usize;
        for k in s..s + src.rownnz[i] as usize {
            let j = src.colind[k];
            if j > i as i32 {
                break;
            }
            if let Some(c) = find(i, j) {
                map[c] = k as i32;
            }
            if j != i as i32 {
                if let Some(c) = find(j as usize, i as i32) {
                    map[c] = k as i32;
                }
            }
        }
    }
    map
}

impl Layout {
    /// The layouts of `m` (from `body_simple`, `dof_parentid`, `dof_bodyid`, `dof_madr` and the
    /// body tree).
    pub fn new(m: &Model) -> Layout {
        let nv = m.nv;
        let parent = &m.dof_parentid;
        let mut dof_simplenum = vec![0; nv];
        let mut count = 0;
        for i in (0..nv).rev() {
            count = if m.body_simple[m.dof_bodyid[i]] != 0 { count + 1 } else { 0 };
            dof_simplenum[i] = count;
        }
        let mpat = dof_pattern(parent, &dof_simplenum, true, false);
        let m_full = dof_pattern(parent, &dof_simplenum, false, false);
        let d = dof_pattern(parent, &dof_simplenum, false, true);
        let d_diag = (0..nv)
            .map(|i| {
                let s = d.rowadr[i] as usize;
                d.colind[s..s + d.rownnz[i] as usize].iter().position(|&c| c == i as i32).unwrap_or(0) as i32
            })
            .collect();
        // the legacy layout: each dof's diagonal at `dof_madr`, its ancestors after it
        let mut map_m2m = vec![-1; mpat.nnz()];
        for i in 0..nv {
            let end = (mpat.rowadr[i] + mpat.rownnz[i]) as usize;
            map_m2m[end - 1] = m.dof_madr[i] as i32;
            if dof_simplenum[i] == 0 {
                for (n, _) in ancestors(parent, i).enumerate() {
                    map_m2m[end - 2 - n] = (m.dof_madr[i] + 1 + n) as i32;
                }
            }
        }
        Layout {
            map_m2d: lower_to_sym_map(&d, &mpat),
            map_d2m: gather_map(&mpat, &d),
            map_m2m,
            b: body_pattern(m),
            d_diag,
            d,
            m_full,
            m: mpat,
            dof_simplenum,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bodies: world, a (hinge, dof 0), b under a (two hinges, dofs 1 and 2), c under the world
    /// (a simple slide body, dof 3).
    fn model() -> Model {
        Model {
            nbody: 4,
            nv: 4,
            body_parentid: vec![0, 0, 1, 0],
            body_dofnum: vec![0, 1, 2, 1],
            body_dofadr: vec![-1, 0, 1, 3],
            body_simple: vec![0, 0, 0, 2],
            dof_bodyid: vec![1, 2, 2, 3],
            dof_parentid: vec![-1, 0, 1, -1],
            dof_madr: vec![0, 1, 3, 6],
            ..Model::default()
        }
    }

    #[test]
    fn layouts_of_a_small_tree_hand() {
        let l = Layout::new(&model());
        assert_eq!(l.dof_simplenum, [0, 0, 0, 1]);
        // M: dof 0 alone, dof 1 with 0, dof 2 with 0 and 1, the simple dof 3 alone
        assert_eq!((l.m.rownnz.as_slice(), l.m.colind.as_slice()), (&[1, 2, 3, 1][..], &[0, 0, 1, 0, 1, 2, 3][..]));
        // D: every ancestor and descendant, columns increasing
        assert_eq!(l.d.rownnz, [3, 3, 3, 1]);
        assert_eq!(l.d.colind, [0, 1, 2, 0, 1, 2, 0, 1, 2, 3]);
        assert_eq!(l.d_diag, [0, 1, 2, 0]);
        // B: the world sees every dof; a sees its subtree, b its ancestors' and its own
        assert_eq!(l.b.rownnz, [4, 3, 3, 1]);
        assert_eq!(l.b.colind, [0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 3]);
        // the legacy layout: each row's diagonal first, then its ancestors nearest first
        assert_eq!(l.map_m2m, [0, 2, 1, 5, 4, 3, 6]);
        assert_eq!(l.map_d2m, [0, 3, 4, 6, 7, 8, 9]);
        assert_eq!(l.map_m2d, [0, 1, 3, 1, 2, 4, 3, 4, 5, 6]);
    }
}
