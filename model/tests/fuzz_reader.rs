//! Bounded fuzzing of the MJCF reader: every corpus file, mutated many times with a fixed seed,
//! must give `Ok` or `Err` from `parse_str`, never a panic.
//!
//! No fuzzing dependency: a small inline PRNG (splitmix64) drives byte flips, deletions,
//! duplications, truncations, attribute-value swaps and insertions of XML-significant tokens.
//! `SPECULA_FUZZ_ITERS` sets the mutants per file (default 400, about 5 s; the run stays well under 20 s
//! with the test profile's opt-level 2). Skipped, saying so, without the corpus.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use specula_model::xml::parse_str;

/// splitmix64: tiny, fast, and good enough to pick mutation sites.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Tokens that stress the tokenizer, the entity resolver, the number parser and include handling.
const TOKENS: &[&str] = &[
    "<",
    ">",
    "/>",
    "</",
    "\"",
    "'",
    "=",
    "&",
    "&#",
    "&#x110000;",
    "&#0;",
    "&amp",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?x ?>",
    "<!DOCTYPE x>",
    "<include file=\"",
    "<include file=\"nope.xml\"/>",
    "nan",
    "-inf",
    "1e999",
    "0x1p-1080",
    "1.2.3",
    "+-1",
    " 1 2 3 4 5 6 7 8 ",
    "é",
    "\u{feff}",
    "<body>",
    "</body>",
    "<default>",
    "<geom/>",
    "\r\n",
    "\t",
    "class=\"",
    " pos=\"",
];

/// Bytes to write over a random position.
const BYTES: &[u8] = b"<>/\"'= &;#x.-+eE019aZ\n\t\r\x00\xff";

/// Apply one random mutation to `data`.
fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    if data.is_empty() {
        data.extend_from_slice(TOKENS[rng.below(TOKENS.len())].as_bytes());
        return;
    }
    let len = data.len();
    match rng.below(7) {
        0 => {
            let at = rng.below(len);
            data[at] = BYTES[rng.below(BYTES.len())];
        }
        1 => {
            let at = rng.below(len);
            let n = 1 + rng.below(16.min(len - at));
            data.drain(at..at + n);
        }
        2 => {
            let at = rng.below(len);
            let n = 1 + rng.below(64.min(len - at));
            let copy: Vec<u8> = data[at..at + n].to_vec();
            let to = rng.below(len + 1);
            data.splice(to..to, copy);
        }
        3 => {
            let at = rng.below(len);
            data.truncate(at);
        }
        4 => swap_attribute_values(rng, data),
        5 => {
            let to = rng.below(len + 1);
            let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
            data.splice(to..to, token.iter().copied());
        }
        _ => {
            // Flip one bit: catches offsets inside multi-byte characters.
            let at = rng.below(len);
            data[at] ^= 1 << rng.below(8);
        }
    }
}

/// Swap the contents of two `"..."` attribute values (a value of the wrong kind in place).
fn swap_attribute_values(rng: &mut Rng, data: &mut Vec<u8>) {
    let mut spans = Vec::new();
    let mut i = 0;
    while i + 1 < data.len() {
        if data[i] == b'=' && data[i + 1] == b'"' {
            if let Some(end) = data[i + 2..].iter().position(|&b| b == b'"') {
                spans.push((i + 2, i + 2 + end));
                i += 2 + end;
            }
        }
        i += 1;
    }
    if spans.len() < 2 {
        return;
    }
    let (a, b) = (spans[rng.below(spans.len())], spans[rng.below(spans.len())]);
    let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    if first == second || first.1 > second.0 {
        return;
    }
    let mut out = Vec::with_capacity(data.len());
    out.extend_from_slice(&data[..first.0]);
    out.extend_from_slice(&data[second.0..second.1]);
    out.extend_from_slice(&data[first.1..second.0]);
    out.extend_from_slice(&data[first.0..first.1]);
    out.extend_from_slice(&data[second.1..]);
    *data = out;
}

/// Every `.xml` file below `dir`, sorted (so seeds map to the same inputs on every machine).
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
fn mutated_corpus_never_panics() {
    let Some(corpus) = common::corpus() else { return };
    let iters: u64 = std::env::var("SPECULA_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(400);
    let mut files = Vec::new();
    xml_files(&corpus, &mut files);
    assert!(!files.is_empty(), "empty corpus");
    // Silence the default hook's report for each caught panic; failures are listed below.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut panics = Vec::new();
    let (mut ok, mut err) = (0usize, 0usize);
    for (index, file) in files.iter().enumerate() {
        let original = std::fs::read(file).expect("read corpus file");
        let dir = file.parent().unwrap_or(Path::new("."));
        let name = file.display().to_string();
        for iter in 0..iters {
            let seed = (index as u64) << 32 | iter;
            let mut rng = Rng(seed);
            let mut data = original.clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut data);
            }
            let text = String::from_utf8_lossy(&data);
            match catch_unwind(AssertUnwindSafe(|| parse_str(&text, dir, &name).is_ok())) {
                Ok(true) => ok += 1,
                Ok(false) => err += 1,
                Err(payload) => {
                    let what = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    panics.push(format!("{name} seed {seed:#x}: {what}"));
                }
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(panics.is_empty(), "{} panics:\n{}", panics.len(), panics.join("\n"));
    // Sanity: the mutations must exercise both outcomes.
    assert!(ok > 0 && err > 0, "ok {ok}, err {err}");
}
