//! A facet's vertex and neighbour sets for [`super`]: a list of ids that holds up to three
//! inline (every simplicial facet) and moves to the heap beyond. A 200k-vertex hull makes over a
//! million facets, and two allocations each were a third of the replay's time.

use std::ops::{Deref, DerefMut};

/// Ids in order; the operations keep the order a `Vec` would.
#[derive(Clone, Debug)]
pub(in crate::mesh) enum Ids {
    /// Up to three ids: the count and the slots.
    Inline(u8, [usize; 3]),
    /// Any number of ids.
    Heap(Vec<usize>),
}

impl Default for Ids {
    fn default() -> Self {
        Ids::Inline(0, [0; 3])
    }
}

impl Deref for Ids {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match self {
            Ids::Inline(n, a) => &a[..*n as usize],
            Ids::Heap(v) => v,
        }
    }
}

impl DerefMut for Ids {
    fn deref_mut(&mut self) -> &mut [usize] {
        match self {
            Ids::Inline(n, a) => &mut a[..*n as usize],
            Ids::Heap(v) => v,
        }
    }
}

impl Ids {
    /// The ids of `s`, in order.
    pub(in crate::mesh) fn from_slice(s: &[usize]) -> Ids {
        let mut out = Ids::default();
        for &x in s {
            out.push(x);
        }
        out
    }

    /// The heap form (moving inline ids there).
    fn heap(&mut self) -> &mut Vec<usize> {
        if let Ids::Inline(n, a) = self {
            let mut v = Vec::with_capacity(8);
            v.extend_from_slice(&a[..*n as usize]);
            *self = Ids::Heap(v);
        }
        match self {
            Ids::Heap(v) => v,
            Ids::Inline(..) => unreachable!("moved to the heap above"),
        }
    }

    /// Appends `x`.
    pub(in crate::mesh) fn push(&mut self, x: usize) {
        match self {
            Ids::Inline(n, a) if (*n as usize) < a.len() => {
                a[*n as usize] = x;
                *n += 1;
            }
            _ => self.heap().push(x),
        }
    }

    /// Inserts `x` at `i`, shifting the rest (`Vec::insert`).
    pub(in crate::mesh) fn insert(&mut self, i: usize, x: usize) {
        match self {
            Ids::Inline(n, a) if (*n as usize) < a.len() => {
                let len = *n as usize;
                assert!(i <= len, "insertion index {i} beyond length {len}");
                a.copy_within(i..len, i + 1);
                a[i] = x;
                *n += 1;
            }
            _ => self.heap().insert(i, x),
        }
    }

    /// Keeps the ids `keep` accepts, in order (`Vec::retain`).
    pub(in crate::mesh) fn retain(&mut self, mut keep: impl FnMut(&usize) -> bool) {
        match self {
            Ids::Inline(n, a) => {
                let mut w = 0;
                for r in 0..*n as usize {
                    if keep(&a[r]) {
                        a[w] = a[r];
                        w += 1;
                    }
                }
                *n = w as u8;
            }
            Ids::Heap(v) => v.retain(keep),
        }
    }

    /// Removes the id at `i`, the last one taking its slot (`Vec::swap_remove`).
    pub(in crate::mesh) fn swap_remove(&mut self, i: usize) -> usize {
        match self {
            Ids::Inline(n, a) => {
                let len = *n as usize;
                assert!(i < len, "removal index {i} beyond length {len}");
                let x = a[i];
                a[i] = a[len - 1];
                *n -= 1;
                x
            }
            Ids::Heap(v) => v.swap_remove(i),
        }
    }
}

impl<'a> IntoIterator for &'a Ids {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The ids of an [`Ids`] by value.
pub(in crate::mesh) struct IntoIter {
    ids: Ids,
    at: usize,
}

impl Iterator for IntoIter {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let x = self.ids.get(self.at).copied()?;
        self.at += 1;
        Some(x)
    }
}

impl IntoIterator for Ids {
    type Item = usize;
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter { ids: self, at: 0 }
    }
}

/// A qhull set: ids in order, whose deletion moves the last one into the freed slot.
pub(in crate::mesh) trait QhullSet: DerefMut<Target = [usize]> {
    /// Removes the id at `i`, the last one taking its slot.
    fn take_slot(&mut self, i: usize);
}

/// Deletes the first occurrence of `x` from a qhull set, the last id taking its slot
/// (qh_setdel).
pub(in crate::mesh) fn set_del(set: &mut impl QhullSet, x: usize) {
    if let Some(pos) = set.iter().position(|&y| y == x) {
        set.take_slot(pos);
    }
}

impl QhullSet for Ids {
    fn take_slot(&mut self, i: usize) {
        self.swap_remove(i);
    }
}

impl QhullSet for Vec<usize> {
    fn take_slot(&mut self, i: usize) {
        self.swap_remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::Ids;

    #[test]
    fn every_operation_matches_a_vec_inline_and_on_the_heap() {
        let (mut ids, mut v) = (Ids::default(), Vec::new());
        let check = |ids: &Ids, v: &Vec<usize>| assert_eq!(&ids[..], &v[..]);
        for x in [5, 3, 9] {
            ids.push(x);
            v.push(x);
        }
        check(&ids, &v);
        ids.insert(1, 7);
        v.insert(1, 7);
        check(&ids, &v);
        ids.retain(|&x| x != 3);
        v.retain(|&x| x != 3);
        check(&ids, &v);
        assert_eq!(ids.swap_remove(0), v.swap_remove(0));
        check(&ids, &v);
        ids.insert(0, 1);
        v.insert(0, 1);
        check(&ids, &v);
        let mut small = Ids::from_slice(&[4, 2]);
        small.insert(2, 8);
        assert_eq!(&small[..], &[4, 2, 8]);
        small.retain(|&x| x != 4);
        assert_eq!(small.swap_remove(0), 2);
        assert_eq!(&small[..], &[8]);
        assert_eq!(small.into_iter().collect::<Vec<_>>(), [8]);
    }
}
