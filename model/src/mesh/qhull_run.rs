//! The replay's entry points: qhull's run over a point set (initial simplex, then the points in
//! qhull's order) and its output in MuJoCo's `mesh_graph` order.

use super::*;

/// The hull as qhull leaves it, in point indices.
#[derive(Clone, Debug, PartialEq)]
pub struct QhullHull {
    /// Triangles in facet-list order, counter-clockwise from outside (MuJoCo's `mesh_graph`
    /// faces).
    pub faces: Vec<[usize; 3]>,
    /// Corners in qhull's vertex-list order (MuJoCo's `vert_globalid`).
    pub vertices: Vec<usize>,
    /// Each triangle's corners in qhull's own order (decreasing vertex id), which decides the
    /// order of each corner's neighbours in MuJoCo's graph.
    pub facet_vertices: Vec<[usize; 3]>,
    /// For each vertex of [`QhullHull::vertices`], its triangles (indices into `faces`) in the
    /// order of qhull's vertex-neighbour set, when the replay knows it.
    pub vertex_facets: Option<Vec<Vec<usize>>>,
}

/// Triangles of the hull of `pts` in MuJoCo's `mesh_graph` order (counter-clockwise from
/// outside), or `None` where the replay does not cover qhull's build (see the module docs).
pub fn qhull_faces(pts: &[f64]) -> Option<Vec<[usize; 3]>> {
    qhull_hull(pts).map(|h| h.faces)
}

/// The hull of `pts` as qhull builds it (see [`QhullHull`]), or `None` where the replay does
/// not cover qhull's build (see the module docs).
pub fn qhull_hull(pts: &[f64]) -> Option<QhullHull> {
    let n = pts.len() / 3;
    if n < 4 {
        return None;
    }
    let maxp = maxmin(pts, n);
    let mut maxabs = [0.0f64; 3];
    let mut width = 0.0f64;
    for k in 0..3 {
        let (lo, hi) = (pts[3 * maxp[2 * k] + k], pts[3 * maxp[2 * k + 1] + k]);
        maxabs[k] = hi.max(-lo);
        width = width.max(hi - lo);
    }
    let maxabs_all = maxabs[0].max(maxabs[1]).max(maxabs[2]);
    let maxsum = maxabs[0] + maxabs[1] + maxabs[2];
    let distround = f64::EPSILON * (3.0 * (3f64.sqrt() * maxabs_all).min(maxsum) * 1.01 + maxabs_all);
    let min_visible = 2.0 * distround;
    let min_outside = 2.0 * min_visible;
    // Initial simplex.
    let (mut minx, mut maxx) = (maxp[0], maxp[0]);
    for &p in &maxp {
        if pts[3 * maxx] < pts[3 * p] {
            maxx = p;
        }
        if pts[3 * minx] > pts[3 * p] {
            minx = p;
        }
    }
    if minx == maxx {
        return None;
    }
    let mut simplex = vec![minx, maxx];
    // qhull's first "determinant" is the x extent of that edge (measured: six points with a z
    // extent of 6 and an x extent of 4 take the first point whose 2-row det beats 10·1e-3·4·6,
    // fuzz_cases/mutate/mesh_polygons_far_points.xml)
    let mut prevdet = (pts[3 * maxx] - pts[3 * minx]).abs();
    // qh_detroundoff's NEARzero for 2 and 3 rows (cumulative sums of the per-axis maxima).
    let nearzero = [10.0 * 80.0 * (maxabs[0] + maxabs[1]) * f64::EPSILON, 10.0 * 80.0 * maxsum * f64::EPSILON];
    for i in 2..4 {
        let mut best: Option<(usize, f64)> = None;
        for &p in &maxp {
            if simplex.contains(&p) || best.is_some_and(|(b, _)| b == p) {
                continue;
            }
            let d = det_simplex(pts, p, &simplex[..i]);
            if best.is_none_or(|(_, bd)| d > bd) {
                best = Some((p, d));
            }
        }
        let target = prevdet * width;
        let mindet = 10.0 * 1e-3 * target;
        let (mut maxpoint, mut maxdet) = best.map_or((None, -1.0), |(p, d)| (Some(p), d));
        let near = |d: f64| d < nearzero[i - 2];
        let falsenarrow = maxdet > 0.0 && maxdet / target < 1e-3;
        if maxpoint.is_none() || near(maxdet) || falsenarrow {
            // qh_maxsimplex then scans the other points in input order, stopping at the first
            // one that is clearly better than `mindet`.
            for p in 0..n {
                if maxp.contains(&p) || simplex.contains(&p) {
                    continue;
                }
                let d = det_simplex(pts, p, &simplex[..i]);
                if d > maxdet {
                    maxdet = d;
                    maxpoint = Some(p);
                    if !near(d) && d > mindet {
                        break;
                    }
                }
            }
        }
        let p = maxpoint?;
        if near(maxdet) {
            return None;
        }
        simplex.push(p);
        prevdet = maxdet;
    }
    let mut interior = [0.0; 3];
    for &s in &simplex {
        let x = pt(pts, s);
        for k in 0..3 {
            interior[k] += x[k] / 4.0;
        }
    }
    // Vertex id 0 is qhull's sentinel; ids 1..4 follow the simplex order.
    let mut vpoint = vec![usize::MAX];
    vpoint.extend_from_slice(&simplex);
    let vpos = vpoint.iter().map(|&p| if p == usize::MAX { [0.0; 3] } else { pt(pts, p) }).collect();
    let mut qh = Qh {
        pts,
        vpoint,
        vpos,
        facets: Vec::new(),
        planes: Vec::new(),
        centrums: Vec::new(),
        ridges: Vec::new(),
        list: IdList::default(),
        next: None,
        newlist: None,
        interior,
        min_visible,
        min_outside,
        max_outside: 0.0,
        merges: 0,
        bail: false,
        merged_away: Vec::new(),
        scan_new: false,
        notsharp: false,
        vlist: IdList::default(),
        moved: vec![1, 2, 3, 4],
        moved_flag: vec![false, true, true, true, true],
        vfacets: Chains::default(),
        vfacets_on: false,
        visit: Vec::new(),
        visit_id: 0,
        vmark: Vec::new(),
        horizon_marked: Vec::new(),
        by_ridge: Vec::new(),
        vsets: Default::default(),
        delridge: Vec::new(),
    };
    for v in [4, 3, 2, 1] {
        qh.vlist.push_back(v);
    }
    // A hull of n corners keeps 2n - 4 facets and makes about three times as many on the way.
    qh.facets.reserve(2 * n);
    qh.planes.reserve(2 * n);
    // Facet k omits the k-th vertex of (4, 3, 2, 1); its neighbours are the other three
    // facets in creation order (so neighbour i is opposite vertex i).
    let desc = [4, 3, 2, 1];
    for skip in 0..4 {
        let v: Vec<usize> = desc.iter().copied().filter(|&x| x != desc[skip]).collect();
        let nb: Vec<usize> = (0..4).filter(|&k| k != skip).collect();
        let f = qh.make([v[0], v[1], v[2]], Ids::from_slice(&nb));
        qh.set_plane(f);
    }
    // Partition all other points.
    let distoutside = 2.0 * min_outside;
    let mut rest: Vec<usize> = (0..n).filter(|i| !simplex.contains(i)).collect();
    for f in qh.list.iter().collect::<Vec<_>>() {
        let mut keep = Vec::new();
        let mut best: Option<(usize, f64)> = None;
        for &p in &rest {
            let d = qh.dist(f, p);
            if d < distoutside {
                keep.push(p);
                continue;
            }
            match best {
                None => best = Some((p, d)),
                Some((b, bd)) if d > bd => {
                    qh.facets[f].outside.push(b);
                    best = Some((p, d));
                }
                _ => qh.facets[f].outside.push(p),
            }
        }
        if let Some((b, bd)) = best {
            qh.facets[f].outside.push(b);
            qh.facets[f].furthest = bd;
        }
        rest = keep;
    }
    // With merging, qhull partitions the points left over by scanning all facets (all new).
    qh.scan_new = true;
    for &p in &rest {
        let start = qh.list.first().expect("initial facets");
        qh.partition(p, start);
    }
    qh.scan_new = false;
    for g in qh.list.iter().collect::<Vec<_>>() {
        qh.facets[g].newfacet = false;
    }
    qh.newlist = None;
    // The facet with the furthest point goes first.
    let mut best: Option<(usize, f64)> = None;
    for f in qh.list.iter() {
        if !qh.facets[f].outside.is_empty() && best.is_none_or(|(_, d)| qh.facets[f].furthest > d) {
            best = Some((f, qh.facets[f].furthest));
        }
    }
    if let Some((f, _)) = best {
        qh.remove(f);
        qh.list.push_front(f);
    }
    qh.next = qh.list.first();
    loop {
        while let Some(f) = qh.next.filter(|&f| qh.facets[f].outside.is_empty()) {
            qh.next = qh.list.after(f);
        }
        let Some(f) = qh.next else { break };
        let p = qh.facets[f].outside.pop()?;
        qh.addpoint(p, f);
        if qh.bail {
            return None;
        }
    }
    // Output: vertex order with the orientation made counter-clockwise from outside.
    let mut faces = Vec::new();
    let mut facet_vertices = Vec::new();
    let tris = qh.triangulate()?;
    for &(f, vid) in &tris {
        let [a, b, c] = vid.map(|v| qh.vpoint[v]);
        let (pa, pb, pc) = (pt(pts, a), pt(pts, b), pt(pts, c));
        let nrm = cross(&sub(&pb, &pa), &sub(&pc, &pa));
        faces.push(if dot3(&nrm, &qh.planes[f].normal) > 0.0 { [a, b, c] } else { [b, a, c] });
        facet_vertices.push([a, b, c]);
    }
    let (vertices, vertex_facets) = qh.vertex_order(&tris);
    Some(QhullHull { faces, vertices, facet_vertices, vertex_facets })
}
