//! An intrusive doubly linked list over dense ids, for qhull's facet list and vertex list in
//! [`super`]: appending, unlinking, moving to the end or the front and stepping to a neighbour
//! take constant time, so a replay step costs what it touches, not the size of the hull (the
//! `Vec` it replaces made every removal and "first new facet" lookup scan the whole list, which
//! made a 40k-vertex sphere take 89 s).

/// No id (end of the list, or not linked).
const NIL: usize = usize::MAX;

/// Ids `0..` linked in some order; each id is in the list at most once.
#[derive(Clone, Debug)]
pub(in crate::mesh) struct IdList {
    head: usize,
    tail: usize,
    prev: Vec<usize>,
    next: Vec<usize>,
    linked: Vec<bool>,
}

impl Default for IdList {
    fn default() -> Self {
        IdList { head: NIL, tail: NIL, prev: Vec::new(), next: Vec::new(), linked: Vec::new() }
    }
}

/// `NIL` as `None`.
fn some(i: usize) -> Option<usize> {
    (i != NIL).then_some(i)
}

impl IdList {
    /// Grows the tables to hold id `id`.
    fn reserve(&mut self, id: usize) {
        if self.linked.len() <= id {
            self.prev.resize(id + 1, NIL);
            self.next.resize(id + 1, NIL);
            self.linked.resize(id + 1, false);
        }
    }

    /// Whether `id` is in the list.
    pub(in crate::mesh) fn contains(&self, id: usize) -> bool {
        self.linked.get(id).copied().unwrap_or(false)
    }

    /// First id.
    pub(in crate::mesh) fn first(&self) -> Option<usize> {
        some(self.head)
    }

    /// The id after `id` (which must be in the list).
    pub(in crate::mesh) fn after(&self, id: usize) -> Option<usize> {
        some(self.next[id])
    }

    /// Appends `id` (not in the list).
    pub(in crate::mesh) fn push_back(&mut self, id: usize) {
        self.reserve(id);
        debug_assert!(!self.linked[id]);
        self.prev[id] = self.tail;
        self.next[id] = NIL;
        match some(self.tail) {
            Some(t) => self.next[t] = id,
            None => self.head = id,
        }
        self.tail = id;
        self.linked[id] = true;
    }

    /// Puts `id` (not in the list) first.
    pub(in crate::mesh) fn push_front(&mut self, id: usize) {
        self.reserve(id);
        debug_assert!(!self.linked[id]);
        self.next[id] = self.head;
        self.prev[id] = NIL;
        match some(self.head) {
            Some(h) => self.prev[h] = id,
            None => self.tail = id,
        }
        self.head = id;
        self.linked[id] = true;
    }

    /// Takes `id` (in the list) out of it.
    pub(in crate::mesh) fn unlink(&mut self, id: usize) {
        debug_assert!(self.contains(id));
        let (p, n) = (self.prev[id], self.next[id]);
        match some(p) {
            Some(p) => self.next[p] = n,
            None => self.head = n,
        }
        match some(n) {
            Some(n) => self.prev[n] = p,
            None => self.tail = p,
        }
        self.prev[id] = NIL;
        self.next[id] = NIL;
        self.linked[id] = false;
    }

    /// Moves `id` to the end, appending it if it is not in the list.
    pub(in crate::mesh) fn move_to_back(&mut self, id: usize) {
        if self.contains(id) {
            self.unlink(id);
        }
        self.push_back(id);
    }

    /// The ids from `start` (included; `None`: nothing) to the end.
    pub(in crate::mesh) fn from(&self, start: Option<usize>) -> Iter<'_> {
        Iter { list: self, at: start.unwrap_or(NIL) }
    }

    /// All ids in list order.
    pub(in crate::mesh) fn iter(&self) -> Iter<'_> {
        Iter { list: self, at: self.head }
    }
}

/// Iterator over an [`IdList`] from some id to the end.
pub(in crate::mesh) struct Iter<'a> {
    list: &'a IdList,
    at: usize,
}

impl Iterator for Iter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let id = some(self.at)?;
        self.at = self.list.next[id];
        Some(id)
    }
}

/// For each key (a dense id), a set of values kept as a chain in one arena: adding takes
/// constant time without an allocation per key; removing and visiting walk the key's chain.
/// The order of a key's values is not kept.
#[derive(Clone, Debug, Default)]
pub(in crate::mesh) struct Chains {
    /// First node of each key's chain.
    head: Vec<usize>,
    /// (value, next node) per node.
    node: Vec<(usize, usize)>,
    /// Nodes freed by [`Chains::remove`].
    free: Vec<usize>,
}

impl Chains {
    /// Adds `value` to `key`'s set.
    pub(in crate::mesh) fn add(&mut self, key: usize, value: usize) {
        if self.head.len() <= key {
            self.head.resize(key + 1, NIL);
        }
        let n = (value, self.head[key]);
        let at = match self.free.pop() {
            Some(at) => {
                self.node[at] = n;
                at
            }
            None => {
                self.node.push(n);
                self.node.len() - 1
            }
        };
        self.head[key] = at;
    }

    /// Removes one `value` from `key`'s set, if there.
    pub(in crate::mesh) fn remove(&mut self, key: usize, value: usize) {
        let Some(&first) = self.head.get(key) else { return };
        let mut prev = NIL;
        let mut at = first;
        while at != NIL {
            let (v, next) = self.node[at];
            if v == value {
                match some(prev) {
                    Some(p) => self.node[p].1 = next,
                    None => self.head[key] = next,
                }
                self.free.push(at);
                return;
            }
            prev = at;
            at = next;
        }
    }

    /// `key`'s values.
    pub(in crate::mesh) fn values(&self, key: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.head.get(key).copied().unwrap_or(NIL);
        std::iter::from_fn(move || {
            let (v, next) = *self.node.get(at)?;
            at = next;
            Some(v)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Chains, IdList};

    #[test]
    fn chains_hold_each_keys_values() {
        let mut c = Chains::default();
        for (k, v) in [(2, 10), (0, 11), (2, 12), (2, 13), (5, 14)] {
            c.add(k, v);
        }
        c.remove(2, 12);
        c.remove(2, 99);
        c.add(0, 15);
        let sorted = |k: usize| {
            let mut v: Vec<usize> = c.values(k).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(sorted(2), [10, 13]);
        assert_eq!(sorted(0), [11, 15]);
        assert_eq!(sorted(5), [14]);
        assert!(sorted(1).is_empty() && sorted(7).is_empty());
    }

    #[test]
    fn moves_and_unlinks_keep_the_order_a_vec_would() {
        let mut l = IdList::default();
        let mut v: Vec<usize> = Vec::new();
        for id in [3, 0, 7, 5, 1] {
            l.push_back(id);
            v.push(id);
        }
        l.move_to_back(0);
        v.retain(|&x| x != 0);
        v.push(0);
        l.unlink(5);
        v.retain(|&x| x != 5);
        l.push_front(5);
        v.insert(0, 5);
        l.move_to_back(9);
        v.push(9);
        assert_eq!(l.iter().collect::<Vec<_>>(), v);
        assert_eq!(l.from(Some(1)).collect::<Vec<_>>(), [1, 0, 9]);
        assert!(l.contains(9) && !l.contains(4));
    }
}
