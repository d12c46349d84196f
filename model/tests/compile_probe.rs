//! Development probe: dumps compiled fields of the file named by `SPECULA_PROBE_XML`, one
//! field per line (`name v0 v1 ...`), for comparison against MuJoCo with a Python script.
//! Run: `SPECULA_PROBE_XML=f.xml cargo test -p specula-model --test compile_probe -- --ignored --nocapture`.

use specula_model::load_file;
use std::fmt::Write;
use std::path::Path;

fn line<T: std::fmt::Display>(out: &mut String, name: &str, v: impl IntoIterator<Item = T>) {
    let _ = write!(out, "{name}");
    for x in v {
        let _ = write!(out, " {x}");
    }
    out.push('\n');
}

fn flat<const N: usize>(v: &[[f64; N]]) -> Vec<String> {
    v.iter().flatten().map(|x| format!("{x:e}")).collect()
}

fn scal(v: &[f64]) -> Vec<String> {
    v.iter().map(|x| format!("{x:e}")).collect()
}

#[test]
#[ignore]
fn dump() {
    let Ok(path) = std::env::var("SPECULA_PROBE_XML") else { return };
    let m = match load_file(Path::new(&path)) {
        Ok(m) => m,
        Err(e) => {
            println!("ERROR {e}");
            return;
        }
    };
    let mut out = String::new();
    for (n, v) in [
        ("nq", m.nq),
        ("nv", m.nv),
        ("nbody", m.nbody),
        ("njnt", m.njnt),
        ("ngeom", m.ngeom),
        ("nsite", m.nsite),
        ("npair", m.npair),
        ("nexclude", m.nexclude),
        ("nkey", m.nkey),
        ("nu", m.nu),
        ("na", m.na),
        ("ntendon", m.ntendon),
        ("nsensor", m.nsensor),
        ("neq", m.neq),
        ("nmocap", m.nmocap),
        ("ntree", m.ntree),
    ] {
        line(&mut out, n, [v]);
    }
    line(&mut out, "qpos0", scal(&m.qpos0));
    line(&mut out, "qpos_spring", scal(&m.qpos_spring));
    line(&mut out, "body_parentid", &m.body_parentid);
    line(&mut out, "body_rootid", &m.body_rootid);
    line(&mut out, "body_weldid", &m.body_weldid);
    line(&mut out, "body_mocapid", &m.body_mocapid);
    line(&mut out, "body_jntnum", &m.body_jntnum);
    line(&mut out, "body_jntadr", &m.body_jntadr);
    line(&mut out, "body_dofnum", &m.body_dofnum);
    line(&mut out, "body_dofadr", &m.body_dofadr);
    line(&mut out, "body_treeid", &m.body_treeid);
    line(&mut out, "body_geomnum", &m.body_geomnum);
    line(&mut out, "body_geomadr", &m.body_geomadr);
    line(&mut out, "body_simple", &m.body_simple);
    line(&mut out, "body_sameframe", m.body_sameframe.iter().map(|x| *x as u8));
    line(&mut out, "body_pos", flat(&m.body_pos));
    line(&mut out, "body_quat", flat(&m.body_quat));
    line(&mut out, "body_ipos", flat(&m.body_ipos));
    line(&mut out, "body_iquat", flat(&m.body_iquat));
    line(&mut out, "body_mass", scal(&m.body_mass));
    line(&mut out, "body_subtreemass", scal(&m.body_subtreemass));
    line(&mut out, "body_inertia", flat(&m.body_inertia));
    line(&mut out, "body_gravcomp", scal(&m.body_gravcomp));
    line(&mut out, "body_margin", scal(&m.body_margin));
    line(&mut out, "body_contype", &m.body_contype);
    line(&mut out, "body_conaffinity", &m.body_conaffinity);
    line(&mut out, "jnt_type", m.jnt_type.iter().map(|x| *x as u8));
    line(&mut out, "jnt_qposadr", &m.jnt_qposadr);
    line(&mut out, "jnt_dofadr", &m.jnt_dofadr);
    line(&mut out, "jnt_bodyid", &m.jnt_bodyid);
    line(&mut out, "jnt_group", &m.jnt_group);
    line(&mut out, "jnt_limited", m.jnt_limited.iter().map(|x| u8::from(*x)));
    line(&mut out, "jnt_solref", flat(&m.jnt_solref));
    line(&mut out, "jnt_solimp", flat(&m.jnt_solimp));
    line(&mut out, "jnt_pos", flat(&m.jnt_pos));
    line(&mut out, "jnt_axis", flat(&m.jnt_axis));
    line(&mut out, "jnt_stiffness", scal(&m.jnt_stiffness));
    line(&mut out, "jnt_range", flat(&m.jnt_range));
    line(&mut out, "jnt_margin", scal(&m.jnt_margin));
    line(&mut out, "dof_bodyid", &m.dof_bodyid);
    line(&mut out, "dof_jntid", &m.dof_jntid);
    line(&mut out, "dof_parentid", &m.dof_parentid);
    line(&mut out, "dof_treeid", &m.dof_treeid);
    line(&mut out, "dof_solref", flat(&m.dof_solref));
    line(&mut out, "dof_solimp", flat(&m.dof_solimp));
    line(&mut out, "dof_frictionloss", scal(&m.dof_frictionloss));
    line(&mut out, "dof_armature", scal(&m.dof_armature));
    line(&mut out, "dof_damping", scal(&m.dof_damping));
    line(&mut out, "geom_type", m.geom_type.iter().map(|x| *x as u8));
    line(&mut out, "geom_contype", &m.geom_contype);
    line(&mut out, "geom_conaffinity", &m.geom_conaffinity);
    line(&mut out, "geom_condim", &m.geom_condim);
    line(&mut out, "geom_bodyid", &m.geom_bodyid);
    line(&mut out, "geom_dataid", &m.geom_dataid);
    line(&mut out, "geom_group", &m.geom_group);
    line(&mut out, "geom_priority", &m.geom_priority);
    line(&mut out, "geom_sameframe", m.geom_sameframe.iter().map(|x| *x as u8));
    line(&mut out, "geom_solmix", scal(&m.geom_solmix));
    line(&mut out, "geom_solref", flat(&m.geom_solref));
    line(&mut out, "geom_solimp", flat(&m.geom_solimp));
    line(&mut out, "geom_size", flat(&m.geom_size));
    line(&mut out, "geom_aabb", flat(&m.geom_aabb));
    line(&mut out, "geom_rbound", scal(&m.geom_rbound));
    line(&mut out, "geom_pos", flat(&m.geom_pos));
    line(&mut out, "geom_quat", flat(&m.geom_quat));
    line(&mut out, "geom_friction", flat(&m.geom_friction));
    line(&mut out, "geom_margin", scal(&m.geom_margin));
    line(&mut out, "geom_gap", scal(&m.geom_gap));
    line(&mut out, "geom_surfacevel", flat(&m.geom_surfacevel));
    line(&mut out, "site_type", m.site_type.iter().map(|x| *x as u8));
    line(&mut out, "site_bodyid", &m.site_bodyid);
    line(&mut out, "site_sameframe", m.site_sameframe.iter().map(|x| *x as u8));
    line(&mut out, "site_size", flat(&m.site_size));
    line(&mut out, "site_pos", flat(&m.site_pos));
    line(&mut out, "site_quat", flat(&m.site_quat));
    line(&mut out, "pair_dim", &m.pair_dim);
    line(&mut out, "pair_geom1", &m.pair_geom1);
    line(&mut out, "pair_geom2", &m.pair_geom2);
    line(&mut out, "pair_signature", &m.pair_signature);
    line(&mut out, "pair_solref", flat(&m.pair_solref));
    line(&mut out, "pair_solimp", flat(&m.pair_solimp));
    line(&mut out, "pair_margin", scal(&m.pair_margin));
    line(&mut out, "pair_gap", scal(&m.pair_gap));
    line(&mut out, "pair_friction", flat(&m.pair_friction));
    line(&mut out, "exclude_signature", &m.exclude_signature);
    line(&mut out, "nmesh", [m.nmesh]);
    line(&mut out, "geom_fluid", m.geom_fluid.iter().flatten().map(|x| format!("{x:e}")));
    line(&mut out, "dof_Madr", &m.dof_madr);
    line(&mut out, "nM", [m.nm]);
    line(&mut out, "tree_bodyadr", &m.tree_bodyadr);
    line(&mut out, "tree_bodynum", &m.tree_bodynum);
    line(&mut out, "tree_dofadr", &m.tree_dofadr);
    line(&mut out, "tree_dofnum", &m.tree_dofnum);
    line(&mut out, "flg_gravcomp", [u8::from(m.flg_gravcomp)]);
    line(&mut out, "flg_surfacevel", [u8::from(m.flg_surfacevel)]);
    line(&mut out, "flg_adhesion", [u8::from(m.flg_adhesion)]);
    line(&mut out, "body_bvhadr", &m.body_bvhadr);
    line(&mut out, "body_bvhnum", &m.body_bvhnum);
    line(&mut out, "bvh_depth", &m.bvh_depth);
    line(&mut out, "bvh_child", m.bvh_child.iter().flatten());
    line(&mut out, "bvh_nodeid", &m.bvh_nodeid);
    line(&mut out, "bvh_aabb", flat(&m.bvh_aabb));
    line(&mut out, "ncam", [m.ncam]);
    line(&mut out, "nlight", [m.nlight]);
    line(&mut out, "nmeshvert", [m.nmeshvert]);
    line(&mut out, "nmeshface", [m.nmeshface]);
    line(&mut out, "mesh_vertadr", &m.mesh_vertadr);
    line(&mut out, "mesh_faceadr", &m.mesh_faceadr);
    line(&mut out, "jnt_actfrclimited", m.jnt_actfrclimited.iter().map(|x| u8::from(*x)));
    line(&mut out, "jnt_actgravcomp", m.jnt_actgravcomp.iter().map(|x| u8::from(*x)));
    line(&mut out, "jnt_stiffnesspoly", flat(&m.jnt_stiffnesspoly));
    line(&mut out, "jnt_actfrcrange", flat(&m.jnt_actfrcrange));
    line(&mut out, "dof_dampingpoly", flat(&m.dof_dampingpoly));
    line(&mut out, "geom_matid", &m.geom_matid);
    line(&mut out, "geom_rgba", m.geom_rgba.iter().flatten().map(|&x| f64::from(x)));
    line(&mut out, "geom_adhesion", scal(&m.geom_adhesion));
    line(&mut out, "site_group", &m.site_group);
    line(&mut out, "key_act", scal(&m.key_act));
    line(&mut out, "mesh_vert", m.mesh_vert.iter().flatten().map(|&x| f64::from(x)));
    line(&mut out, "mesh_face", m.mesh_face.iter().flatten());
    line(&mut out, "nhfield", [m.nhfield]);
    line(&mut out, "hfield_size", flat(&m.hfield_size));
    line(&mut out, "hfield_data", &m.hfield_data);
    line(&mut out, "mesh_vertnum", &m.mesh_vertnum);
    line(&mut out, "mesh_facenum", &m.mesh_facenum);
    line(&mut out, "mesh_pos", flat(&m.mesh_pos));
    line(&mut out, "mesh_quat", flat(&m.mesh_quat));
    line(&mut out, "mesh_scale", flat(&m.mesh_scale));
    line(&mut out, "key_time", scal(&m.key_time));
    line(&mut out, "key_qpos", scal(&m.key_qpos));
    line(&mut out, "key_qvel", scal(&m.key_qvel));
    line(&mut out, "key_mpos", scal(&m.key_mpos));
    line(&mut out, "key_mquat", scal(&m.key_mquat));
    line(&mut out, "key_ctrl", scal(&m.key_ctrl));
    let o = &m.opt;
    let mut s = String::new();
    line(&mut s, "opt_timestep", [o.timestep]);
    line(&mut s, "opt_gravity", o.gravity);
    line(&mut s, "opt_integrator", [o.integrator as u8]);
    line(&mut s, "opt_cone", [o.cone as u8]);
    line(&mut s, "opt_disableflags", [o.disableflags]);
    line(&mut s, "opt_enableflags", [o.enableflags]);
    line(&mut s, "opt_impratio", [o.impratio]);
    line(&mut s, "opt_o_margin", [o.o_margin]);
    line(&mut s, "opt_o_solref", o.o_solref);
    line(&mut s, "opt_o_friction", o.o_friction);
    line(&mut s, "opt_density", [o.density]);
    line(&mut s, "opt_viscosity", [o.viscosity]);
    line(&mut s, "opt_solver", [o.solver as u8]);
    line(&mut s, "opt_jacobian", [o.jacobian as u8]);
    line(&mut s, "opt_iterations", [o.iterations]);
    println!("BEGIN\n{out}{s}END");
}
