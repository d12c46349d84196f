//! The collision driver: MuJoCo's `mj_collision` for rigid geoms, in MuJoCo's contact order.
//!
//! Algorithm (the order is what matters: the C pipeline's results depend on it):
//! 1. Nothing when constraints or contacts are disabled, or with fewer than two bodies.
//! 2. Broadphase ([`super::broadphase`]): body-pair signatures, ascending; repeats skipped.
//! 3. For each body pair, first every explicit `<pair>` whose signature is not above the body
//!    pair's (explicit pairs are sorted by signature, so they interleave with the body pairs),
//!    then, unless the bitmasks of the bodies cannot meet or the pair is excluded:
//!    - two single-geom bodies: that geom pair;
//!    - both bodies with a geom tree and mid-phase on: the geom pairs whose bounding spheres and
//!      oriented boxes overlap, sorted by (geom 1, geom 2) after the lower-type-first swap,
//!      which is the order MuJoCo's post-tree contact sort produces;
//!    - otherwise all geom pairs, body 1's geoms outer, body 2's inner.
//!
//!    Geom pairs already given as explicit pairs of this body pair are skipped; every pair
//!    passes `filterCollisionPair` (bitmasks for non-explicit pairs, sleep for explicit ones,
//!    bounding spheres with margin + gap) before the narrowphase.
//! 4. Explicit pairs left over (signatures above the last body pair).
//!
//! The mid-phase traverses the per-body trees ([`super::bvh`]) when the model has them and the
//! state gives the body inertial frames; otherwise it applies the leaf tests to every
//! collidable geom pair of the two bodies, which differs only where an inner node would prune a
//! pair within margin + gap (under `override` with geom gaps).

use super::broadphase::{body_geoms, broadphase, BroadphaseScratch};
use super::bvh::traverse;
use super::filter::{collide_obb, filter_bitmask, filter_sphere, pair_gap, pair_margin};
use super::model::{
    CollisionModel, ModelShapeError, DSBL_CONSTRAINT, DSBL_CONTACT, DSBL_MIDPHASE, DSBL_MULTICCD, DSBL_NATIVECCD,
    ENBL_OVERRIDE, ENBL_SLEEP, ENBL_SPECULATIVE,
};
use super::params::{mix_geom_params, pair_params, set_contact, surface_velocity, ContactParams};
use super::sort::mj_sort;
use super::state::{State, SLEEP_AWAKE};
use crate::contact::Contact;
use crate::narrowphase::{table, CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};
use crate::speculative::{self, Motions, Pair, PairParams};

/// A geom pair queued for the narrowphase: lower type first, and the explicit pair it comes
/// from, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct GeomPair {
    g1: usize,
    g2: usize,
    ipair: Option<usize>,
}

/// Where the driver appends its finished contacts, in MuJoCo's order: a `Vec<Contact>`, or a
/// caller's own store (the rust route writes them straight into MuJoCo's contact arena rather
/// than collecting them first and converting them after).
pub trait ContactSink {
    /// Contacts appended so far.
    fn len(&self) -> usize;
    /// Whether nothing has been appended.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Appends one contact.
    fn push(&mut self, c: &Contact);
}

impl ContactSink for Vec<Contact> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn push(&mut self, c: &Contact) {
        Vec::push(self, *c);
    }
}

/// A geom pair that reached the narrowphase but has no Rust collider (height field or SDF).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedPair {
    /// The two geoms, in MuJoCo's order (lower type first).
    pub geom: [usize; 2],
    /// The explicit pair it comes from, if any.
    pub ipair: Option<usize>,
    /// Index in the output contact list where MuJoCo would have put its contacts.
    pub index: usize,
}

/// What one `collide` call did besides producing contacts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CollideReport {
    /// Distinct body pairs returned by the broadphase.
    pub body_pairs: usize,
    /// Geom pairs handed to the narrowphase (supported or not).
    pub pairs_tested: usize,
    /// Pairs MuJoCo would collide but the Rust narrowphase cannot, when the state has no
    /// [`State::fallback`]: the caller must get their contacts elsewhere (e.g. from C) and insert
    /// them at `index`.
    pub unsupported: Vec<UnsupportedPair>,
    /// Pairs whose contacts [`State::fallback`] computed (in their place in the list).
    pub fallback_pairs: usize,
}

/// Why `collide` refused to run.
#[derive(Debug, Clone, PartialEq)]
pub enum CollideError {
    /// The model's arrays are inconsistent.
    Model(ModelShapeError),
    /// The state's arrays do not match the model.
    State(String),
    /// The model has flexes, which the Rust driver does not collide.
    FlexUnsupported,
    /// Speculative contacts are enabled (or robust mode is on) but the state carries no
    /// velocities to predict them from (`State::speculative` is `None` or does not fit the model).
    MissingSpeculativeInput,
    /// Sleep is enabled but the state has no sleep data.
    MissingSleepState,
    /// More candidate body pairs than MuJoCo's broadphase buffer holds (MuJoCo stops there too).
    BroadphaseFull,
    /// A pair the engine has no collider for, and [`State::fallback`] has none either.
    NoPairFunction(usize, usize),
}

impl std::fmt::Display for CollideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CollideError::Model(e) => write!(f, "{e}"),
            CollideError::State(s) => write!(f, "inconsistent collision state: {s}"),
            CollideError::FlexUnsupported => write!(f, "the model has flexes; the Rust collision driver has none"),
            CollideError::MissingSpeculativeInput => {
                write!(f, "speculative contacts are enabled but the state gives no velocities to predict them from")
            }
            CollideError::MissingSleepState => write!(f, "sleep is enabled but no sleep state was given"),
            CollideError::BroadphaseFull => write!(
                f,
                "broadphase buffer full: more candidate body pairs than nbody (nbody - 1) / 2, where MuJoCo 4.0.0 stops with an error too"
            ),
            CollideError::NoPairFunction(g1, g2) => write!(f, "no collision function for geoms {g1} and {g2}"),
        }
    }
}

impl std::error::Error for CollideError {}

/// The collision stage with its scratch buffers, reused by every call (no allocation per step
/// once the buffers have grown).
#[derive(Debug)]
pub struct CollisionStage {
    broad: BroadphaseScratch,
    tree: Vec<GeomPair>,
    tree_buf: Vec<GeomPair>,
    stack: Vec<(usize, usize)>,
    points: Vec<ContactPoint>,
    /// Contacts of a pair computed by the state's fallback (no allocation once grown).
    fallback_points: Vec<ContactPoint>,
    motions: Motions,
    /// The model last validated (address and array sizes): validation walks every array, so it
    /// runs once per model rather than on every call.
    validated: Option<(usize, usize, usize, usize, usize)>,
    /// The hull scope kept across calls (see [`CollisionStage::keep_hull_scope`]); `None`: a new
    /// one per call.
    hull_scope: Option<u64>,
}

impl Default for CollisionStage {
    fn default() -> Self {
        CollisionStage::new()
    }
}

/// Per-call context shared by the helpers.
struct Ctx<'a> {
    m: &'a CollisionModel,
    s: &'a State<'a>,
    opt: CollideOptions,
    /// Geom motions when speculative contacts are on.
    spec: Option<&'a Motions>,
}

impl CollisionStage {
    /// A stage with empty scratch buffers.
    pub fn new() -> Self {
        CollisionStage {
            broad: BroadphaseScratch::default(),
            tree: Vec::new(),
            tree_buf: Vec::new(),
            stack: Vec::new(),
            points: vec![ContactPoint::default(); MAX_CONTACTS],
            fallback_points: Vec::new(),
            motions: Motions::default(),
            validated: None,
            hull_scope: None,
        }
    }

    /// Keeps the convex narrowphase's hull checks from one call to the next: for a caller that
    /// owns the model and passes the same one on every call, and calls
    /// [`CollisionStage::hulls_changed`] whenever a hull may have changed (replaced, edited).
    /// Otherwise each call checks each hull it meets once (its fingerprint: every sampled
    /// vertex, face and polygon), which for a small mesh scene is a seventh of the call.
    pub fn keep_hull_scope(&mut self) {
        self.hull_scope = Some(crate::narrowphase::convex::new_hull_scope());
    }

    /// A hull of the model may have changed: the next call checks the hulls again (see
    /// [`CollisionStage::keep_hull_scope`]).
    pub fn hulls_changed(&mut self) {
        if self.hull_scope.is_some() {
            self.keep_hull_scope();
        }
    }

    /// All contacts of the current state, exactly as MuJoCo's `mj_collision` lists them; `out`
    /// is cleared first. See the module documentation for the order.
    pub fn collide(
        &mut self,
        m: &CollisionModel,
        s: &State,
        out: &mut Vec<Contact>,
    ) -> Result<CollideReport, CollideError> {
        out.clear();
        self.collide_into(m, s, out)
    }

    /// [`CollisionStage::collide`], appending to `out` (not cleared first).
    pub fn collide_into<S: ContactSink>(
        &mut self,
        m: &CollisionModel,
        s: &State,
        out: &mut S,
    ) -> Result<CollideReport, CollideError> {
        let key = (m as *const CollisionModel as usize, m.ngeom(), m.nbody(), m.npair(), m.bvh_aabb.len());
        if self.validated != Some(key) {
            m.validate().map_err(CollideError::Model)?;
            self.validated = Some(key);
        }
        check_state(m, s)?;
        let report = CollideReport::default();
        let nbody = m.nbody();
        if m.opt.disabled(DSBL_CONSTRAINT) || m.opt.disabled(DSBL_CONTACT) || nbody + m.nflex < 2 {
            return Ok(report);
        }
        if m.nflex > 0 {
            return Err(CollideError::FlexUnsupported);
        }
        let mut motions = std::mem::take(&mut self.motions);
        let spec = m.opt.enabled(ENBL_SPECULATIVE) || m.opt.robust;
        if spec && !motions.compute(m, s) {
            self.motions = motions;
            return Err(CollideError::MissingSpeculativeInput);
        }
        // Robust mode with every pair too slow to matter adds nothing to what the narrowphase
        // finds (no separated, predicted or persisting contact passes `can_matter`), so a scene
        // at rest takes the plain path: static broadphase, no per-pair speculative checks.
        let idle = m.opt.robust && motions.robust_idle(m);
        // the model is borrowed for the whole call, so its hulls cannot change during it
        let scope = self.hull_scope.unwrap_or_else(crate::narrowphase::convex::new_hull_scope);
        let result = crate::narrowphase::convex::with_hull_scope(scope, || {
            self.collide_with(m, s, (spec && !idle).then_some(&motions), out, report)
        });
        self.motions = motions;
        result
    }

    /// [`CollisionStage::collide`] once the speculative motions (if any) are known.
    fn collide_with(
        &mut self,
        m: &CollisionModel,
        s: &State,
        spec: Option<&Motions>,
        out: &mut impl ContactSink,
        mut report: CollideReport,
    ) -> Result<CollideReport, CollideError> {
        let nbody = m.nbody();
        let sleep_filter = m.opt.enabled(ENBL_SLEEP) && s.sleep.is_some_and(|sl| sl.nbody_awake < nbody);

        let ctx = Ctx {
            m,
            s,
            opt: CollideOptions {
                ccd_iterations: m.opt.ccd_iterations,
                ccd_tolerance: m.opt.ccd_tolerance,
                multiccd: !m.opt.disabled(DSBL_MULTICCD),
                nativeccd: !m.opt.disabled(DSBL_NATIVECCD),
            },
            spec,
        };

        broadphase(m, s, sleep_filter, spec, &mut self.broad);
        if self.broad.overflow {
            return Err(CollideError::BroadphaseFull);
        }
        let npair = m.npair();
        let midphase = !m.opt.disabled(DSBL_MIDPHASE);
        // a fast body pair skips the trees, whose boxes are not swept (never without native CCD,
        // where MuJoCo 4.0.0 does not speculate)
        let swept =
            |b1: usize, b2: usize| spec.is_some_and(|mo| mo.fast_pair(b1, b2)) && !m.opt.disabled(DSBL_NATIVECCD);
        let mut last_signature = u32::MAX;
        let mut pairadr = 0;
        for k in 0..self.broad.pairs.len() {
            let signature = self.broad.pairs[k];
            if signature == last_signature {
                continue;
            }
            last_signature = signature;
            report.body_pairs += 1;
            let (b1, b2) = ((signature >> 16) as usize, (signature & 0xFFFF) as usize);

            // explicit pairs up to this signature come first
            let mut merged = false;
            let startadr = pairadr;
            while pairadr < npair && m.pair_signature[pairadr] <= signature {
                merged = m.pair_signature[pairadr] == signature;
                let (g1, g2) = (m.pair_geom1[pairadr], m.pair_geom2[pairadr]);
                if filter_collision_pair(&ctx, g1, g2, Some(pairadr), None) {
                    self.narrow(&ctx, order(m, g1, g2, Some(pairadr)), out, &mut report)?;
                }
                pairadr += 1;
            }
            let skip = if merged { Some(startadr..pairadr) } else { None };

            if filter_bitmask(m.body_contype[b1], m.body_conaffinity[b1], m.body_contype[b2], m.body_conaffinity[b2]) {
                continue;
            }
            if excluded(m, signature) {
                continue;
            }

            if m.body_geomnum[b1] == 1 && m.body_geomnum[b2] == 1 {
                let (g1, g2) = (body_geoms(m, b1).start, body_geoms(m, b2).start);
                if filter_collision_pair(&ctx, g1, g2, None, skip.clone()) {
                    self.narrow(&ctx, order(m, g1, g2, None), out, &mut report)?;
                }
            } else if midphase && m.body_bvhadr[b1] >= 0 && m.body_bvhadr[b2] >= 0 && !swept(b1, b2) {
                self.midphase(&ctx, b1, b2, skip, out, &mut report)?;
            } else {
                for g1 in body_geoms(m, b1) {
                    for g2 in body_geoms(m, b2) {
                        if filter_collision_pair(&ctx, g1, g2, None, skip.clone()) {
                            self.narrow(&ctx, order(m, g1, g2, None), out, &mut report)?;
                        }
                    }
                }
            }
        }

        // explicit pairs beyond the last body pair
        while pairadr < npair {
            let (g1, g2) = (m.pair_geom1[pairadr], m.pair_geom2[pairadr]);
            if filter_collision_pair(&ctx, g1, g2, Some(pairadr), None) {
                self.narrow(&ctx, order(m, g1, g2, Some(pairadr)), out, &mut report)?;
            }
            pairadr += 1;
        }
        Ok(report)
    }

    /// The mid-phase of one body pair (`mj_collideTree` + `contactSort`): leaf pairs that pass
    /// the sphere, box and pair filters, collided in MuJoCo's post-sort order. With trees and
    /// body frames the trees are traversed as in C; otherwise every collidable geom pair is a
    /// leaf pair.
    fn midphase(
        &mut self,
        ctx: &Ctx,
        b1: usize,
        b2: usize,
        skip: Option<std::ops::Range<usize>>,
        out: &mut impl ContactSink,
        report: &mut CollideReport,
    ) -> Result<(), CollideError> {
        let m = ctx.m;
        self.tree.clear();
        let tree = &mut self.tree;
        let mut leaf = |g1: usize, g2: usize| {
            if leaf_pair(ctx, g1, g2, skip.clone()) {
                tree.push(order(m, g1, g2, None));
            }
        };
        match (ctx.s.body_xipos, ctx.s.body_ximat) {
            (Some(xipos), Some(ximat)) if !m.bvh_aabb.is_empty() => {
                traverse(m, b1, b2, xipos, ximat, &mut self.stack, leaf);
            }
            _ => {
                let collidable = |g: &usize| m.geom_contype[*g] != 0 || m.geom_conaffinity[*g] != 0;
                for g1 in body_geoms(m, b1).filter(collidable) {
                    for g2 in body_geoms(m, b2).filter(collidable) {
                        leaf(g1, g2);
                    }
                }
            }
        }
        // MuJoCo sorts the tree's contacts by (geom[0], geom[1]); each pair's contacts are
        // contiguous and the sort is stable, so sorting the pairs is the same
        mj_sort(&mut self.tree, &mut self.tree_buf, |a, b| (a.g1, a.g2).cmp(&(b.g1, b.g2)));
        for k in 0..self.tree.len() {
            let pair = self.tree[k];
            self.narrow(ctx, pair, out, report)?;
        }
        Ok(())
    }

    /// Run the narrowphase on one geom pair and append its finished contacts.
    fn narrow(
        &mut self,
        ctx: &Ctx,
        pair: GeomPair,
        out: &mut impl ContactSink,
        report: &mut CollideReport,
    ) -> Result<(), CollideError> {
        let m = ctx.m;
        let s = ctx.s;
        report.pairs_tested += 1;
        let (g1, g2) = (pair.g1, pair.g2);
        let margin = pair_margin(m, g1, g2, pair.ipair);
        let gap = pair_gap(m, g1, g2, pair.ipair);
        // the pair's narrowphase views, built once for the collider and the speculative stage
        // (in place and used by reference: copying two views was a tenth of a box pile's call)
        let (v1, v2) = (geom(ctx, g1), geom(ctx, g2));
        let n = match (&v1, &v2) {
            (Some(a), Some(b))
                if ctx.opt.nativeccd && table::is_convex(a.ty, b.ty) && !(finite_pose(a) && finite_pose(b)) =>
            {
                // MuJoCo 4.0.0's native convex path gives no contact when a pose holds NaN or
                // inf, speculative or not (measured, `tests/bad_state.rs`: every GJK/EPA type
                // pair with one body at `pos="nan 0 1"` or a NaN `quat`), where specula's GJK
                // returns one NaN contact after running to its iteration limit; the analytic
                // pairs give MuJoCo's NaN contacts unchanged. The speculative stage still runs
                // on the pair: a fast partner advances onto it (S14)
                Some(0)
            }
            (Some(a), Some(b)) => table::collide(a, b, margin + gap, &ctx.opt, &mut self.points),
            _ => None,
        };
        if n == Some(0) && ctx.spec.is_none() {
            // no contact and no speculative stage to add one: the parameters are not needed
            return Ok(());
        }
        let params = match pair.ipair {
            Some(p) => pair_params(m, p),
            None => mix_geom_params(m, g1, g2),
        };
        let Some(n) = n else {
            // No Rust collider: the state's fallback (MuJoCo's own pair function on the rust
            // route) computes the pair in its place, or the caller is told where it belongs.
            let Some(fallback) = s.fallback else {
                report.unsupported.push(UnsupportedPair { geom: [g1, g2], ipair: pair.ipair, index: out.len() });
                return Ok(());
            };
            self.fallback_points.clear();
            if !fallback(g1, g2, margin + gap, &mut self.fallback_points) {
                return Err(CollideError::NoPairFunction(g1, g2));
            }
            report.fallback_pairs += 1;
            push_contacts(m, s, [g1, g2], margin, &params, &self.fallback_points, false, out);
            return Ok(());
        };
        let (solref, solimp) = if m.opt.enabled(ENBL_OVERRIDE) {
            (m.opt.o_solref, m.opt.o_solimp)
        } else {
            (params.solref, params.solimp)
        };
        let (n, speculative) = match (ctx.spec, v1, v2) {
            (Some(motions), Some(a), Some(b)) => {
                let world = |g: usize| geom(ctx, g);
                let pair = Pair {
                    model: m,
                    motions,
                    geoms: [g1, g2],
                    views: [a, b],
                    params: PairParams { margin, solref, solimp },
                    world: &world,
                };
                speculative::pair_contacts(&pair, n, &mut self.points)
            }
            _ => (n, false),
        };
        push_contacts(m, s, [g1, g2], margin, &params, &self.points[..n.min(self.points.len())], speculative, out);
        Ok(())
    }
}

/// Appends a pair's contact points as finished contacts (parameters mixed, surface velocity).
#[allow(clippy::too_many_arguments)]
#[inline]
fn push_contacts(
    m: &CollisionModel,
    s: &State,
    [g1, g2]: [usize; 2],
    margin: f64,
    params: &ContactParams,
    points: &[ContactPoint],
    speculative: bool,
    out: &mut impl ContactSink,
) {
    for cp in points {
        let mut con =
            Contact { dist: cp.dist, pos: cp.pos, frame: cp.frame, geom: [g1 as i32, g2 as i32], ..Default::default() };
        set_contact(m, &mut con, margin, params);
        if speculative {
            // A speculative contact stays in the solver whatever its effective distance
            // (measured: dist +0.0392 with a pair gap of 0.01 is not excluded).
            con.exclude = 0;
        }
        if m.flg_surfacevel {
            con.surfacevel = surface_velocity(m, s.geom_xpos, s.geom_xmat, &con);
        }
        out.push(&con);
    }
}

/// The narrowphase view of geom `g`; `None` for a mesh without a hull or a height field
/// without a grid.
#[inline(always)]
fn geom<'a>(ctx: &Ctx<'a>, g: usize) -> Option<Geom<'a>> {
    let m = ctx.m;
    let hull = if m.geom_type[g] == GeomType::Mesh {
        Some(m.hulls.get(usize::try_from(m.geom_dataid[g]).ok()?)?.as_ref()?)
    } else {
        None
    };
    Some(Geom {
        ty: m.geom_type[g],
        size: m.geom_size[g],
        pos: ctx.s.geom_xpos[g],
        mat: ctx.s.geom_xmat[g],
        rbound: m.geom_rbound[g],
        hull,
        hfield: if m.geom_type[g] == GeomType::Hfield { Some(m.hfield(m.geom_dataid[g])?) } else { None },
    })
}

/// Whether a geom's position and orientation are finite.
#[inline]
fn finite_pose(g: &Geom) -> bool {
    g.pos.iter().chain(g.mat.iter()).all(|x| x.is_finite())
}

/// The leaf test of `mj_collideTree` for two geoms: bounding spheres, then oriented boxes,
/// both with margin + gap, then `filterCollisionPair`.
fn leaf_pair(ctx: &Ctx, g1: usize, g2: usize, skip: Option<std::ops::Range<usize>>) -> bool {
    let m = ctx.m;
    let (xpos, xmat) = (ctx.s.geom_xpos, ctx.s.geom_xmat);
    let bound = pair_margin(m, g1, g2, None) + pair_gap(m, g1, g2, None);
    if sphere_prune(ctx, g1, g2, bound) {
        return false;
    }
    let boxes = [&m.geom_aabb[g1], &m.geom_aabb[g2]];
    if !collide_obb(boxes, [&xpos[g1], &xpos[g2]], [&xmat[g1], &xmat[g2]], bound) {
        return false;
    }
    filter_collision_pair(ctx, g1, g2, None, skip)
}

/// The bounding-sphere filter: swept over the step when a geom of the pair moves and
/// speculative contacts are on, static otherwise. True to prune.
#[inline]
fn sphere_prune(ctx: &Ctx, g1: usize, g2: usize, bound: f64) -> bool {
    match ctx.spec {
        Some(mo) if mo.moving(g1) || mo.moving(g2) => speculative::sweep::swept_prune(ctx.m, ctx.s, mo, g1, g2, bound),
        _ => filter_sphere(ctx.m, ctx.s.geom_xpos, ctx.s.geom_xmat, g1, g2, bound),
    }
}

/// The pair with the lower geom type first (`pushGeomGeom`); equal types keep their order.
#[inline]
fn order(m: &CollisionModel, g1: usize, g2: usize, ipair: Option<usize>) -> GeomPair {
    if (m.geom_type[g1] as usize) > (m.geom_type[g2] as usize) {
        GeomPair { g1: g2, g2: g1, ipair }
    } else {
        GeomPair { g1, g2, ipair }
    }
}

/// Whether a body-pair signature is in the (sorted) exclude list.
#[inline]
fn excluded(m: &CollisionModel, signature: u32) -> bool {
    let ex = &m.exclude_signature;
    let mut k = 0;
    while k < ex.len() && ex[k] < signature {
        k += 1;
    }
    k < ex.len() && ex[k] == signature
}

/// `filterCollisionPair`: true to collide. `skip` holds the explicit pairs of this body pair
/// (when there are any), whose geom pairs are not collided a second time.
#[inline]
fn filter_collision_pair(
    ctx: &Ctx,
    g1: usize,
    g2: usize,
    ipair: Option<usize>,
    skip: Option<std::ops::Range<usize>>,
) -> bool {
    let m = ctx.m;
    if let Some(range) = skip {
        for k in range {
            let (p1, p2) = (m.pair_geom1[k], m.pair_geom2[k]);
            if (p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1) {
                return false;
            }
        }
    }
    if ipair.is_some() && m.opt.enabled(ENBL_SLEEP) {
        if let Some(sl) = ctx.s.sleep {
            let (b1, b2) = (m.geom_bodyid[g1], m.geom_bodyid[g2]);
            if sl.body_awake[b1] != SLEEP_AWAKE && sl.body_awake[b2] != SLEEP_AWAKE {
                return false;
            }
        }
    }
    if ipair.is_none() {
        // a user filter replaces the geom bitmasks (`mjcb_contactfilter`)
        let discard = match ctx.s.contact_filter {
            Some(filter) => filter(g1, g2),
            None => {
                filter_bitmask(m.geom_contype[g1], m.geom_conaffinity[g1], m.geom_contype[g2], m.geom_conaffinity[g2])
            }
        };
        if discard {
            return false;
        }
    }
    let bound = pair_margin(m, g1, g2, ipair) + pair_gap(m, g1, g2, ipair);
    if sphere_prune(ctx, g1, g2, bound) {
        return false;
    }
    // MuJoCo has a collider for every pair except plane/height-field with each other
    let (t1, t2) = (m.geom_type[g1] as usize, m.geom_type[g2] as usize);
    let hfield = GeomType::Hfield as usize;
    !(t1 <= hfield && t2 <= hfield)
}

/// Check the state's array lengths against the model.
fn check_state(m: &CollisionModel, s: &State) -> Result<(), CollideError> {
    let ng = m.ngeom();
    if s.geom_xpos.len() != ng || s.geom_xmat.len() != ng {
        return Err(CollideError::State(format!(
            "geom_xpos has {}, geom_xmat {} entries, ngeom is {ng}",
            s.geom_xpos.len(),
            s.geom_xmat.len()
        )));
    }
    let nb = m.nbody();
    if s.body_xipos.is_some_and(|v| v.len() != nb) || s.body_ximat.is_some_and(|v| v.len() != nb) {
        return Err(CollideError::State(format!("body_xipos / body_ximat do not have {nb} entries")));
    }
    if m.opt.enabled(ENBL_SLEEP) {
        let Some(sl) = s.sleep else {
            return Err(CollideError::MissingSleepState);
        };
        if sl.body_awake.len() != m.nbody() {
            return Err(CollideError::State(format!(
                "body_awake has {} entries, nbody is {}",
                sl.body_awake.len(),
                m.nbody()
            )));
        }
    }
    Ok(())
}
