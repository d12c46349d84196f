//! Shared helper of the `driver_*` tests: build small `CollisionModel`s by hand (no C, no MJCF).
//! Included by the tests with `#[path]`; compiled alone it is an empty test crate.
#![allow(dead_code)]

use specula_engine::collision::{CollisionModel, CollisionStage, State};
use specula_engine::contact::Contact;
use specula_engine::narrowphase::GeomType;

/// A scene under construction: model plus geom poses. Body 0 is the world.
pub struct Scene {
    pub m: CollisionModel,
    pub xpos: Vec<[f64; 3]>,
    pub xmat: Vec<[f64; 9]>,
}

impl Default for Scene {
    fn default() -> Self {
        Scene::new()
    }
}

pub const I3: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

impl Scene {
    /// Just the world body.
    pub fn new() -> Self {
        let mut s = Scene { m: CollisionModel::default(), xpos: vec![], xmat: vec![] };
        s.push_body(0, 0, 0);
        s
    }

    fn push_body(&mut self, parent: usize, dofs: usize, weld: usize) -> usize {
        let m = &mut self.m;
        m.body_parentid.push(parent);
        m.body_weldid.push(weld);
        m.body_dofnum.push(dofs);
        m.body_treeid.push(if weld == 0 { -1 } else { 0 });
        m.body_geomadr.push(-1);
        m.body_geomnum.push(0);
        m.body_contype.push(0);
        m.body_conaffinity.push(0);
        m.body_margin.push(0.0);
        m.body_bvhadr.push(-1);
        m.body_bvhnum.push(0);
        m.body_parentid.len() - 1
    }

    /// A body under `parent` with `dofs` dofs (0: welded to its parent's weld body, as
    /// MuJoCo's `body_weldid`).
    pub fn body(&mut self, parent: usize, dofs: usize) -> usize {
        let id = self.m.body_parentid.len();
        let weld = if dofs > 0 { id } else { self.m.body_weldid[parent] };
        self.push_body(parent, dofs, weld)
    }

    /// A mocap body (no dofs, but its own weld body).
    pub fn mocap(&mut self) -> usize {
        let id = self.m.body_parentid.len();
        self.push_body(0, 0, id)
    }

    /// A geom with MuJoCo's default contact parameters; geoms must be added body by body.
    pub fn geom(&mut self, body: usize, ty: GeomType, size: [f64; 3], pos: [f64; 3]) -> usize {
        let m = &mut self.m;
        let g = m.geom_type.len();
        let (rbound, aabb) = match ty {
            GeomType::Sphere => (size[0], [0.0, 0.0, 0.0, size[0], size[0], size[0]]),
            GeomType::Box => (
                (size[0] * size[0] + size[1] * size[1] + size[2] * size[2]).sqrt(),
                [0.0, 0.0, 0.0, size[0], size[1], size[2]],
            ),
            GeomType::Capsule => (size[0] + size[1], [0.0, 0.0, 0.0, size[0], size[0], size[0] + size[1]]),
            GeomType::Plane => (0.0, [0.0, 0.0, -5e9, 1e10, 1e10, 5e9]),
            _ => (size[0], [0.0, 0.0, 0.0, size[0], size[0], size[0]]),
        };
        m.geom_type.push(ty);
        m.geom_size.push(size);
        m.geom_bodyid.push(body);
        m.geom_contype.push(1);
        m.geom_conaffinity.push(1);
        m.geom_condim.push(3);
        m.geom_priority.push(0);
        m.geom_solmix.push(1.0);
        m.geom_solref.push([0.02, 1.0]);
        m.geom_solimp.push([0.9, 0.95, 0.001, 0.5, 2.0]);
        m.geom_friction.push([1.0, 0.005, 0.0001]);
        m.geom_margin.push(0.0);
        m.geom_gap.push(0.0);
        m.geom_rbound.push(rbound);
        m.geom_aabb.push(aabb);
        m.geom_surfacevel.push([0.0; 6]);
        m.geom_adhesion.push(0.0);
        m.geom_dataid.push(-1);
        self.xpos.push(pos);
        self.xmat.push(I3);
        g
    }

    /// A sphere of radius `r` at `pos`.
    pub fn sphere(&mut self, body: usize, r: f64, pos: [f64; 3]) -> usize {
        self.geom(body, GeomType::Sphere, [r, 0.0, 0.0], pos)
    }

    /// Recompute the per-body aggregates from the geoms, as MuJoCo's compiler does.
    pub fn finish(&mut self) {
        let m = &mut self.m;
        let nbody = m.body_parentid.len();
        for b in 0..nbody {
            let geoms: Vec<usize> = (0..m.geom_type.len()).filter(|&g| m.geom_bodyid[g] == b).collect();
            m.body_geomnum[b] = geoms.len();
            m.body_geomadr[b] = geoms.first().map_or(-1, |&g| g as i32);
            if let (Some(&first), Some(&last)) = (geoms.first(), geoms.last()) {
                assert_eq!(last - first + 1, geoms.len(), "geoms of body {b} must be contiguous");
            }
            m.body_contype[b] = geoms.iter().fold(0, |a, &g| a | m.geom_contype[g]);
            m.body_conaffinity[b] = geoms.iter().fold(0, |a, &g| a | m.geom_conaffinity[g]);
            m.body_margin[b] = geoms.iter().fold(0.0, |a: f64, &g| a.max(m.geom_margin[g] + m.geom_gap[g]));
            // no trees are built here: the mid-phase then tests all collidable geom pairs
            m.body_bvhadr[b] =
                if geoms.iter().any(|&g| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0) { 0 } else { -1 };
        }
        m.flg_surfacevel = m.geom_surfacevel.iter().any(|s| s.iter().any(|&v| v != 0.0));
    }

    /// An explicit pair with MuJoCo's default pair parameters.
    pub fn pair(&mut self, g1: usize, g2: usize) -> usize {
        let m = &mut self.m;
        let (b1, b2) = (m.geom_bodyid[g1] as u32, m.geom_bodyid[g2] as u32);
        let sig = (b1.min(b2) << 16) + b1.max(b2);
        // keep pairs sorted by signature (stable), as the compiler does
        let at = m.pair_signature.iter().position(|&s| s > sig).unwrap_or(m.pair_signature.len());
        m.pair_signature.insert(at, sig);
        m.pair_dim.insert(at, 3);
        m.pair_geom1.insert(at, g1);
        m.pair_geom2.insert(at, g2);
        m.pair_solref.insert(at, [0.02, 1.0]);
        m.pair_solreffriction.insert(at, [0.0, 0.0]);
        m.pair_solimp.insert(at, [0.9, 0.95, 0.001, 0.5, 2.0]);
        m.pair_margin.insert(at, 0.0);
        m.pair_gap.insert(at, 0.0);
        m.pair_adhesion.insert(at, 0.0);
        m.pair_friction.insert(at, [1.0, 1.0, 0.005, 0.0001, 0.0001]);
        at
    }

    /// Exclude the body pair (keeps the list sorted).
    pub fn exclude(&mut self, b1: usize, b2: usize) {
        let sig = ((b1.min(b2) as u32) << 16) + b1.max(b2) as u32;
        self.m.exclude_signature.push(sig);
        self.m.exclude_signature.sort_unstable();
    }

    /// Run the collision stage.
    pub fn collide(&mut self) -> Vec<Contact> {
        self.finish();
        let mut stage = CollisionStage::new();
        let mut out = Vec::new();
        let state = State::new(&self.xpos, &self.xmat);
        stage.collide(&self.m, &state, &mut out).expect("collide");
        out
    }
}

/// The geom pairs of a contact list, in order.
pub fn geoms(contacts: &[Contact]) -> Vec<[i32; 2]> {
    contacts.iter().map(|c| c.geom).collect()
}
