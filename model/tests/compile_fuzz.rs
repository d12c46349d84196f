//! Robustness: corpus models with deterministic random attribute mutations must compile or
//! fail with an error, never panic (skipped, saying so, without the corpus).

mod common;

use specula_model::compile::compile_in;
use specula_model::xml::{parse_file, Element};
use std::path::Path;

/// xorshift64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn count_attrs(el: &Element) -> usize {
    el.attrs.len() + el.children.iter().map(count_attrs).sum::<usize>()
}

fn attr_mut(el: &mut Element, mut k: usize) -> Option<&mut String> {
    if k < el.attrs.len() {
        return Some(&mut el.attrs[k].value);
    }
    k -= el.attrs.len();
    for c in el.children.iter_mut() {
        let n = count_attrs(c);
        if k < n {
            return attr_mut(c, k);
        }
        k -= n;
    }
    None
}

const VALUES: [&str; 12] =
    ["0", "-1", "nan", "inf", "1e300", "", "0 0 0 0", "abc", "1 2", "-0.5 0 0 0 0 0", "1000", "world"];

#[test]
fn mutated_corpus_never_panics() {
    let Some(dir) = common::corpus() else { return };
    let files = [
        "model/humanoid/humanoid.xml",
        "doc/_static/example.xml",
        "test/engine/testdata/collisions.xml",
        "model/replicate/newton_cradle.xml",
        "test/testdata/model.xml",
        "test/user/testdata/robot_arm.xml",
        "model/car/car.xml",
    ];
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for f in files {
        let path = dir.join(f);
        let root = match parse_file(&path) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let n = count_attrs(&root);
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for _ in 0..400 {
            let mut m = root.clone();
            for _ in 0..1 + rng.below(2) {
                let k = rng.below(n);
                let v = VALUES[rng.below(VALUES.len())];
                if let Some(a) = attr_mut(&mut m, k) {
                    *a = v.to_string();
                }
            }
            let r = std::panic::catch_unwind(|| compile_in(&m, &base));
            assert!(r.is_ok(), "panic while compiling a mutation of {f}");
        }
    }
}
