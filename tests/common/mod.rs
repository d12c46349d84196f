//! Helpers shared by the integration tests (each test crate uses some of them).
#![allow(dead_code)]

/// A small deterministic generator (xorshift64*), so random poses are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// A copy of the scene file `scene` that asks for specula's robust mode itself (the custom
/// numeric `specula_robust`, which MuJoCo ignores), written to `path`.
pub fn write_asking_robust(scene: &std::path::Path, path: &std::path::Path) {
    let text = std::fs::read_to_string(scene).unwrap();
    let at = text.find("<worldbody>").expect("the scene has a worldbody");
    let custom = r#"<custom><numeric name="specula_robust" data="1"/></custom>"#;
    std::fs::write(path, format!("{}{custom}\n  {}", &text[..at], &text[at..])).unwrap();
}
