//! Drawing a random scene from a seed: static geoms in `<worldbody>`, on welded and on mocap
//! bodies, with or without a floor; every primitive, convex meshes (random clouds, thin
//! plates, CAD-like) and concave meshes given by their triangles (trays, channels, brackets),
//! as obstacles and as free bodies, thin (below 2 mm) and big; bodies thrown at the
//! obstacles at 0.5 to 40 m/s, some spinning fast, some arriving together, some resting or
//! overlapping at the start; random contact settings, pairs and excludes; random options.

use super::scene::{
    norm, rotate, Fixture, GeomSpec, Joint, Link, MeshAsset, Obstacle, PairSpec, Rng, Scene, SceneOptions, Shape,
    Surface, Thrown, INTEGRATORS,
};

/// A size scale: mostly centimetres, often thin, sometimes big.
fn scale(r: &mut Rng) -> f64 {
    match r.below(10) {
        0..=2 => r.log(0.0004, 0.002),
        3..=7 => r.log(0.004, 0.05),
        _ => r.log(0.05, 0.25),
    }
}

/// A random shape; thin plates (boxes, coins, flat meshes) are common.
fn shape(r: &mut Rng, meshes: &mut Vec<MeshAsset>) -> Shape {
    let s = scale(r);
    match r.below(10) {
        0 => Shape::Sphere(s),
        1 => Shape::Capsule(s, s * r.range(0.2, 4.0)),
        2 => Shape::Ellipsoid([s, s * r.range(0.3, 3.0), s * r.range(0.3, 3.0)]),
        3 => Shape::Cylinder(s * r.range(1.0, 10.0), s * r.range(0.1, 3.0)),
        4 => Shape::Box([s * r.range(0.5, 3.0), s * r.range(0.5, 3.0), s * r.range(0.5, 3.0)]),
        5 => {
            // a thin plate or coin: one dimension of `s`, the others ten to a hundred times it
            let w = (s * r.log(10.0, 100.0)).min(0.3);
            if r.chance(0.5) {
                Shape::Box([w, w * r.range(0.3, 1.0), s])
            } else {
                Shape::Cylinder(w, s)
            }
        }
        6 => {
            let k = meshes.len();
            meshes.push(cloud(r, k, s));
            Shape::Mesh(k)
        }
        7 => {
            let k = meshes.len();
            meshes.push(cad_mesh(r, k, s));
            Shape::Mesh(k)
        }
        8 => {
            let k = meshes.len();
            meshes.push(concave_mesh(r, k, s));
            Shape::Mesh(k)
        }
        _ => {
            let k = meshes.len();
            meshes.push(plate_mesh(r, k, s));
            Shape::Mesh(k)
        }
    }
}

/// A random point cloud, scaled per axis.
fn cloud(r: &mut Rng, k: usize, s: f64) -> MeshAsset {
    let n = match r.below(6) {
        0 => 4 + r.below(4),
        1..=3 => 8 + r.below(30),
        4 => 40 + r.below(120),
        _ => 200 + r.below(400),
    };
    let on_sphere = r.chance(0.3);
    let vertices = (0..n)
        .map(|_| {
            let d = r.direction();
            let l = if on_sphere { 1.0 } else { r.range(0.2, 1.0) };
            [d[0] * l, d[1] * l, d[2] * l]
        })
        .collect();
    let scale = [s * r.range(0.5, 2.0), s * r.range(0.5, 2.0), s * r.range(0.5, 2.0)];
    MeshAsset { name: format!("m{k}"), vertices, faces: Vec::new(), scale, hollow: None }
}

/// A mesh as CAD exports make them (robot links): many points on flat faces and straight
/// edges, which make qhull merge coplanar facets. A tessellated cylinder with rings on its
/// side, a box with points on its faces and edges, or a chamfered box.
fn cad_mesh(r: &mut Rng, k: usize, s: f64) -> MeshAsset {
    let mut v: Vec<[f64; 3]> = Vec::new();
    match r.below(3) {
        0 => {
            let n = 6 + r.below(40);
            let rings = 2 + r.below(4);
            for j in 0..rings {
                let z = -1.0 + 2.0 * j as f64 / (rings - 1) as f64;
                for i in 0..n {
                    let a = std::f64::consts::TAU * i as f64 / n as f64;
                    v.push([a.cos(), a.sin(), z]);
                }
            }
            if r.chance(0.5) {
                v.push([0.0, 0.0, 1.0]);
                v.push([0.0, 0.0, -1.0]);
            }
        }
        1 => {
            let m = 2 + r.below(4);
            let grid = |i: usize| -1.0 + 2.0 * i as f64 / m as f64;
            for i in 0..=m {
                for j in 0..=m {
                    for l in 0..=m {
                        let on_face = i == 0 || i == m || j == 0 || j == m || l == 0 || l == m;
                        if on_face && (r.chance(0.6) || [i, j, l].iter().filter(|&&q| q == 0 || q == m).count() == 3) {
                            v.push([grid(i), grid(j), grid(l)]);
                        }
                    }
                }
            }
        }
        _ => {
            let c = r.range(0.1, 0.4);
            for a in [-1.0, 1.0] {
                for b in [-1.0, 1.0] {
                    for e in [-1.0, 1.0] {
                        v.push([a * (1.0 - c), b, e]);
                        v.push([a, b * (1.0 - c), e]);
                        v.push([a, b, e * (1.0 - c)]);
                    }
                }
            }
        }
    }
    let scale = [s * r.range(0.5, 3.0), s * r.range(0.5, 3.0), s * r.range(0.5, 3.0)];
    MeshAsset { name: format!("m{k}"), vertices: v, faces: Vec::new(), scale, hollow: None }
}

/// A concave mesh given by its triangles, as real parts are (a palm, a tray, a bracket): a
/// union of boxes touching face to face, in the unit cube: a tray (floor and four walls), a
/// channel (floor and two walls) or an L bracket, walls 8 to 25 % of the size thick. Parts
/// thrown at it land in its hollow, where its convex hull is not its surface.
fn concave_mesh(r: &mut Rng, k: usize, s: f64) -> MeshAsset {
    let t = r.range(0.08, 0.25);
    let (lo, hi) = (-1.0, 1.0);
    let floor = ([lo, lo, lo], [hi, hi, lo + 2.0 * t]);
    let z0 = lo + 2.0 * t;
    let wall_x = |x0: f64, x1: f64| ([x0, lo, z0], [x1, hi, hi]);
    let kind = r.below(3);
    let boxes: Vec<([f64; 3], [f64; 3])> = match kind {
        0 => {
            let y0 = lo + 2.0 * t;
            let y1 = hi - 2.0 * t;
            vec![
                floor,
                wall_x(lo, lo + 2.0 * t),
                wall_x(hi - 2.0 * t, hi),
                ([lo + 2.0 * t, lo, z0], [hi - 2.0 * t, y0, hi]),
                ([lo + 2.0 * t, y1, z0], [hi - 2.0 * t, hi, hi]),
            ]
        }
        1 => vec![floor, wall_x(lo, lo + 2.0 * t), wall_x(hi - 2.0 * t, hi)],
        _ => vec![floor, wall_x(lo, lo + 2.0 * t)],
    };
    let (mut vertices, mut faces) = (Vec::new(), Vec::new());
    for (a, b) in boxes {
        let base = vertices.len();
        for c in 0..8 {
            let pick = |i: usize| if c >> i & 1 == 1 { b[i] } else { a[i] };
            vertices.push([pick(0), pick(1), pick(2)]);
        }
        // the six faces of the box, two outward triangles each (corner bit i = axis i high)
        for q in [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]] {
            faces.push([base + q[0], base + q[1], base + q[2]]);
            faces.push([base + q[0], base + q[2], base + q[3]]);
        }
    }
    let scale = [s * r.range(1.0, 4.0), s * r.range(1.0, 4.0), s * r.range(0.5, 2.0)];
    // the space above the floor between the walls (an L bracket's reaches to its open side)
    let (x0, y) = match kind {
        0 => (hi - 2.0 * t, hi - 2.0 * t),
        1 => (hi - 2.0 * t, hi),
        _ => (hi, hi),
    };
    let xc = if kind == 2 { t } else { 0.0 };
    let half = [(x0 - xc.abs()) * scale[0], y * scale[1], (hi - z0) / 2.0 * scale[2]];
    let centre = [xc * scale[0], 0.0, (hi + z0) / 2.0 * scale[2]];
    MeshAsset { name: format!("m{k}"), vertices, faces, scale, hollow: Some((centre, half)) }
}

/// A thin plate as a mesh: a random convex polygon, extruded by a thickness of `s`.
fn plate_mesh(r: &mut Rng, k: usize, s: f64) -> MeshAsset {
    let n = 3 + r.below(8);
    let w = (s * r.log(10.0, 60.0)).min(0.3);
    let mut angles: Vec<f64> = (0..n).map(|_| r.range(0.0, std::f64::consts::TAU)).collect();
    angles.sort_by(f64::total_cmp);
    let mut vertices = Vec::with_capacity(2 * n);
    for a in &angles {
        let rad = r.range(0.6, 1.0);
        for z in [-0.5, 0.5] {
            vertices.push([a.cos() * rad, a.sin() * rad, z]);
        }
    }
    MeshAsset { name: format!("m{k}"), vertices, faces: Vec::new(), scale: [w, w, s], hollow: None }
}

/// Random contact settings; most geoms keep most defaults.
fn surface(r: &mut Rng, pair: bool) -> Surface {
    let mut s = Surface::default();
    if r.chance(0.25) {
        s.margin = Some(r.pick(&[0.0005, 0.001, 0.003, 0.01]));
    }
    if r.chance(0.15) {
        s.gap = Some(r.pick(&[0.0005, 0.002, 0.005]));
    }
    if r.chance(0.3) {
        s.solref = Some(if r.chance(0.7) {
            [r.log(0.002, 0.05), r.range(0.3, 1.5)]
        } else {
            [-r.log(1e3, 1e6), -r.log(1.0, 300.0)]
        });
    }
    if r.chance(0.25) {
        let lo = r.range(0.5, 0.95);
        s.solimp = Some([lo, r.range(lo, 0.999), r.log(0.0005, 0.01), r.range(0.1, 0.9), r.range(1.0, 6.0)]);
    }
    if r.chance(0.35) {
        s.condim = Some(r.pick(&[1, 3, 4, 6]));
    }
    if r.chance(0.3) {
        s.friction = Some([r.range(0.0, 1.5), r.log(1e-4, 0.05), r.log(1e-5, 1e-3)]);
    }
    if !pair {
        if r.chance(0.15) {
            s.priority = Some(r.below(3) as i32);
        }
        if r.chance(0.15) {
            s.solmix = Some(r.range(0.0, 1.0));
        }
        if r.chance(0.12) {
            s.bits = Some((r.below(4) as u32, r.below(4) as u32));
        }
    }
    s
}

/// A random geom named `name`, at its body's origin.
pub(super) fn geom(r: &mut Rng, name: String, meshes: &mut Vec<MeshAsset>) -> GeomSpec {
    let shape = shape(r, meshes);
    let quat = if r.chance(0.4) { [1.0, 0.0, 0.0, 0.0] } else { r.quat() };
    GeomSpec { name, shape, pos: [0.0; 3], quat, surface: surface(r, false) }
}

/// The world position of an obstacle's geom.
fn obstacle_pos(sc: &Scene, o: &Obstacle) -> [f64; 3] {
    match o.fixture.and_then(|k| sc.fixtures.get(k)) {
        Some(fx) => {
            let p = rotate(&fx.quat, &o.geom.pos);
            [fx.pos[0] + p[0], fx.pos[1] + p[1], fx.pos[2] + p[2]]
        }
        None => o.geom.pos,
    }
}

/// The scene of `seed` (`steps` steps long: thrown bodies arrive within the run).
pub fn generate(seed: u64, steps: usize) -> Scene {
    let mut r = Rng::new(seed);
    let opt = SceneOptions {
        timestep: r.log(0.00025, 0.005),
        integrator: r.pick(&INTEGRATORS),
        speculative: r.chance(0.5),
        multiccd: r.chance(0.3),
        nativeccd: !r.chance(0.12),
        override_: r.chance(0.12).then(|| {
            let lo = r.range(0.6, 0.95);
            (
                r.pick(&[0.0, 0.001, 0.005]),
                [r.log(0.002, 0.05), r.range(0.5, 1.2)],
                [lo, r.range(lo, 0.999), r.log(0.0005, 0.01), 0.5, 2.0],
                [r.range(0.1, 1.2), r.range(0.1, 1.2), r.log(1e-3, 0.05), r.log(1e-5, 1e-3), r.log(1e-5, 1e-3)],
            )
        }),
        solver: None,
    };
    let mut sc = Scene {
        seed,
        opt,
        floor: None,
        meshes: Vec::new(),
        fixtures: Vec::new(),
        obstacles: Vec::new(),
        bodies: Vec::new(),
        pairs: Vec::new(),
        excludes: Vec::new(),
        dynamics: Default::default(),
    };
    if r.chance(0.7) {
        let quat = if r.chance(0.85) { [1.0, 0.0, 0.0, 0.0] } else { r.quat() };
        sc.floor = Some(GeomSpec {
            name: "floor".into(),
            shape: Shape::Box([3.0, 3.0, 0.1]),
            pos: [0.0, 0.0, 0.0],
            quat,
            surface: surface(&mut r, false),
        });
    }
    // fixtures: welded or mocap bodies
    for k in 0..r.below(3) {
        let pos = [r.range(-0.3, 0.3), r.range(-0.3, 0.3), r.range(0.05, 0.5)];
        let quat = if r.chance(0.5) { [1.0, 0.0, 0.0, 0.0] } else { r.quat() };
        sc.fixtures.push(Fixture { name: format!("f{k}"), pos, quat, mocap: r.chance(0.4) });
    }
    // obstacles
    let nobs = 1 + r.below(4);
    for k in 0..nobs {
        let mut g = geom(&mut r, format!("o{k}"), &mut sc.meshes);
        match r.below(14) {
            0 => g.shape = Shape::Plane(r.range(0.05, 0.5), r.range(0.05, 0.5)),
            1 => {
                let (nrow, ncol) = (2 + r.below(12), 2 + r.below(12));
                let data = (0..nrow * ncol).map(|_| r.unit()).collect();
                let size = [r.range(0.05, 0.4), r.range(0.05, 0.4), r.log(0.002, 0.1), r.log(0.001, 0.05)];
                g.shape = Shape::Hfield(nrow, ncol, data, size);
            }
            _ => {}
        }
        let fixture = if !sc.fixtures.is_empty() && r.chance(0.5) { Some(r.below(sc.fixtures.len())) } else { None };
        g.pos = match fixture {
            Some(_) => [r.range(-0.05, 0.05), r.range(-0.05, 0.05), r.range(-0.05, 0.05)],
            None => [r.range(-0.3, 0.3), r.range(-0.3, 0.3), r.range(0.02, 0.5)],
        };
        sc.obstacles.push(Obstacle { fixture, geom: g });
    }
    // parts lying in the hollow of concave obstacles: bodies thrown at them cross the
    // obstacle's convex hull but not its surface (line of sight, docs/measurements.md S11)
    for k in 0..nobs {
        let o = &sc.obstacles[k];
        let hollow = match o.geom.shape {
            Shape::Mesh(m) => sc.meshes.get(m).and_then(|m| m.hollow),
            _ => None,
        };
        let Some((centre, half)) = hollow else { continue };
        if !r.chance(0.7) {
            continue;
        }
        let a = r.range(0.15, 0.5) * half.iter().fold(f64::INFINITY, |m, &x| m.min(x));
        let shape = match r.below(3) {
            0 => Shape::Sphere(a),
            1 => Shape::Box([a, a * r.range(0.5, 1.5), a]),
            _ => Shape::Capsule(a * 0.5, a),
        };
        // low in the hollow, as a part resting there would be
        let c = rotate(&o.geom.quat, &[centre[0], centre[1], centre[2] - 0.5 * half[2]]);
        let p = &o.geom.pos;
        let geom = GeomSpec {
            name: format!("o{}", sc.obstacles.len()),
            shape,
            pos: [p[0] + c[0], p[1] + c[1], p[2] + c[2]],
            quat: o.geom.quat,
            surface: surface(&mut r, false),
        };
        let fixture = o.fixture;
        sc.obstacles.push(Obstacle { fixture, geom });
    }
    let nobs = sc.obstacles.len();
    // free bodies
    let h = sc.opt.timestep;
    let duration = steps as f64 * h;
    let nbod = if r.chance(0.1) { 6 + r.below(30) } else { 1 + r.below(5) };
    // some bodies arrive at the same obstacle in the same step
    let shared_hit = r.chance(0.3).then(|| (r.below(nobs), r.range(0.0, 0.6) * duration));
    for k in 0..nbod {
        let ngeom = if r.chance(0.75) { 1 } else { 2 + r.below(3) };
        let mut geoms = Vec::new();
        for j in 0..ngeom {
            let mut g = geom(&mut r, format!("b{k}g{j}"), &mut sc.meshes);
            if j > 0 {
                let d = g.shape.reach(&sc.meshes);
                g.pos = [r.range(-d, d), r.range(-d, d), r.range(-d, d)];
            }
            geoms.push(g);
        }
        let reach: f64 = geoms.iter().map(|g| g.shape.reach(&sc.meshes) + norm(&g.pos)).fold(0.0, f64::max);
        let quat = r.quat();
        let mut spin = [0.0; 3];
        if r.chance(0.3) {
            let w = r.log(1.0, 400.0);
            let d = r.direction();
            spin = [d[0] * w, d[1] * w, d[2] * w];
        }
        let (target, t_hit) = match shared_hit {
            Some((o, t)) if r.chance(0.7) => (o, t),
            _ => (r.below(nobs), r.range(0.0, 0.7) * duration),
        };
        let tp = obstacle_pos(&sc, &sc.obstacles[target]);
        let oreach = sc.obstacles[target].geom.shape.reach(&sc.meshes);
        let (pos, vel) = match r.below(10) {
            // resting on or overlapping the obstacle (or the floor), slow
            0 | 1 => {
                let d = r.direction();
                let gap = r.range(-0.3, 0.1) * reach;
                let l = oreach.min(0.3) * r.range(0.0, 1.0) + reach + gap;
                let p = if sc.floor.is_some() && r.chance(0.4) {
                    [r.range(-0.3, 0.3), r.range(-0.3, 0.3), reach * r.range(0.5, 1.05)]
                } else {
                    [tp[0] + d[0] * l, tp[1] + d[1] * l, tp[2] + d[2] * l]
                };
                let v = r.direction();
                let s = r.range(0.0, 0.5);
                (p, [v[0] * s, v[1] * s, v[2] * s])
            }
            // thrown at the obstacle
            _ => {
                let speed = r.log(0.5, 40.0);
                let mut d = if r.chance(0.6) { [0.0, 0.0, -1.0] } else { r.direction() };
                let jitter = r.range(0.0, 0.3);
                let j = r.direction();
                d = [d[0] + j[0] * jitter, d[1] + j[1] * jitter, d[2] + j[2] * jitter];
                let n = norm(&d);
                d = [d[0] / n, d[1] / n, d[2] / n];
                let off = [r.range(-1.0, 1.0) * oreach.min(0.2), r.range(-1.0, 1.0) * oreach.min(0.2), 0.0];
                let back = speed * t_hit + reach + oreach.min(0.3);
                let p = [tp[0] + off[0] - d[0] * back, tp[1] + off[1] - d[1] * back, tp[2] + off[2] - d[2] * back];
                (p, [d[0] * speed, d[1] * speed, d[2] * speed])
            }
        };
        // articulated parts: a chain of links on hinge, slide, ball or no joints; some parts
        // swing on a hinge to the world instead of flying free
        let mut links = Vec::new();
        if r.chance(0.2) {
            for j in 0..1 + r.below(3) {
                let mut lg = vec![geom(&mut r, format!("b{k}l{j}g0"), &mut sc.meshes)];
                if r.chance(0.3) {
                    let mut g = geom(&mut r, format!("b{k}l{j}g1"), &mut sc.meshes);
                    let d = g.shape.reach(&sc.meshes);
                    g.pos = [r.range(-d, d), r.range(-d, d), r.range(-d, d)];
                    lg.push(g);
                }
                let d = lg[0].shape.reach(&sc.meshes) + reach;
                let joint = match r.below(5) {
                    0 => Joint::Hinge(r.direction(), r.range(-1.0, 1.0) * r.log(0.1, 100.0)),
                    1 => Joint::Slide(r.direction(), r.range(-2.0, 2.0)),
                    2 => Joint::Ball([r.range(-20.0, 20.0), r.range(-20.0, 20.0), r.range(-20.0, 20.0)]),
                    _ => Joint::Weld,
                };
                let dir = r.direction();
                links.push(Link {
                    name: format!("b{k}l{j}"),
                    pos: [dir[0] * d, dir[1] * d, dir[2] * d],
                    joint,
                    geoms: lg,
                });
            }
        }
        let root = if !links.is_empty() && r.chance(0.4) {
            Joint::Hinge(r.direction(), r.range(-1.0, 1.0) * r.log(1.0, 200.0))
        } else {
            Joint::Free
        };
        sc.bodies.push(Thrown { name: format!("b{k}"), pos, quat, vel, spin, geoms, root, links });
    }
    // explicit pairs and excludes
    for _ in 0..r.below(3).saturating_sub(1) {
        let names = sc.geom_names();
        let (a, b) = (r.pick(&names).to_owned(), r.pick(&names).to_owned());
        if a != b {
            let surface = surface(&mut r, true);
            sc.pairs.push(PairSpec { geoms: [a, b], surface });
        }
    }
    if r.chance(0.15) {
        let names = sc.body_names();
        let (a, b) = (r.pick(&names).to_owned(), r.pick(&names).to_owned());
        if a != b {
            sc.excludes.push([a, b]);
        }
    }
    super::dynamics::draw(seed, &mut sc);
    sc.tidy();
    sc
}
