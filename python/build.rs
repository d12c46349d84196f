//! Links the extension module with `-Bsymbolic`: its references to its own symbols bind inside
//! it. The module defines `mj_collision` (the root crate's drop-in entry point) and takes its
//! address to redirect libmujoco's calls there; without this, a `libspecula.so` loaded with
//! LD_PRELOAD (whose `mj_collision` comes first in the global scope) would be taken for it.
fn main() {
    println!("cargo:rustc-link-arg-cdylib=-Wl,-Bsymbolic");
}
