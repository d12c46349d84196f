//! Mesh files of an attached model resolve against that model's own directory (and its own
//! `meshdir`), not the parent's.
//!
//! Measured with MuJoCo 4.0.0 (`mujoco.MjModel.from_xml_path` on the same three files written
//! under /tmp): it loads sub/meshes/tet.obj for the child, and pm/tet.obj for the parent's own
//! mesh. The expected centres are hand-derived: a solid tetrahedron's centre of mass is the
//! mean of its corners, (1/4, 1/4, 1/4) for the unit corner tetrahedron and (1/2, 1/4, 1/4)
//! for the one stretched to x = 2.

use specula_model::load_file;
use std::fs;
use std::path::Path;

const FACES: &str = "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("create test dir");
    }
    fs::write(path, text).expect("write test file");
}

#[test]
fn attached_mesh_resolves_against_the_child_file() {
    let root = std::env::temp_dir().join(format!("specula-attach-mesh-{}", std::process::id()));
    let unit = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n{FACES}");
    let long = format!("v 0 0 0\nv 2 0 0\nv 0 1 0\nv 0 0 1\n{FACES}");
    // same file name in both places: only the directory tells them apart
    write(&root.join("sub/meshes/tet.obj"), &unit);
    write(&root.join("pm/tet.obj"), &long);
    write(
        &root.join("sub/child.xml"),
        r#"<mujoco model="child"><compiler meshdir="meshes"/>
             <asset><mesh name="tet" file="tet.obj"/></asset>
             <worldbody><body name="b"><freejoint/><geom type="mesh" mesh="tet"/></body></worldbody>
           </mujoco>"#,
    );
    write(
        &root.join("parent.xml"),
        r#"<mujoco model="parent"><compiler meshdir="pm"/>
             <asset><model name="c" file="sub/child.xml"/><mesh name="ptet" file="tet.obj"/></asset>
             <worldbody><geom type="mesh" mesh="ptet"/><attach model="c" body="b" prefix="c-"/></worldbody>
           </mujoco>"#,
    );
    let m = load_file(&root.join("parent.xml"));
    let _ = fs::remove_dir_all(&root);
    let m = m.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.nmesh, 2);
    let close = |a: [f64; 3], b: [f64; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
    assert!(close(m.mesh_pos[0], [0.5, 0.25, 0.25]), "parent mesh {:?}", m.mesh_pos[0]);
    assert!(close(m.mesh_pos[1], [0.25, 0.25, 0.25]), "attached mesh {:?}", m.mesh_pos[1]);
}
