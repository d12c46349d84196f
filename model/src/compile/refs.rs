//! Elements outside the body tree that refer to bodies, joints, sites and geoms (tendons,
//! actuators, sensors, equalities, contact pairs, excludes): counting them, copying them for
//! `replicate` and bringing them along with `attach`.

use super::attrs::Res;
use super::copies::Placed;
use super::{contact, names_of, spec, tree, Extras};
use crate::xml::Element;

/// Activation states and controls of an actuator element (`actuator_actnum` and the number
/// of controls it takes), starting from the actuator default of its class in `defs`.
pub fn act_and_controls(el: &Element, defs: &spec::Defaults) -> Res<(usize, usize)> {
    let class = defs.class_of(el, 0)?;
    let mut a = defs.classes[class].actuator.clone();
    a.apply(el)?;
    Ok((a.actnum(), a.ctrlnum()))
}

/// Reference attributes of tendons and actuators (and a tendon's path elements).
pub(super) const OBJECT_REFS: [&str; 10] =
    ["site", "geom", "joint", "body", "tendon", "sidesite", "refsite", "jointinparent", "cranksite", "slidersite"];

/// The other reference attributes of sensors and equalities.
const OTHER_REFS: [&str; 12] = [
    "objname", "refname", "actuator", "body1", "body2", "joint1", "joint2", "site1", "site2", "tendon1", "tendon2",
    "geom1",
];

fn refs_of(el: &Element, out: &mut Vec<String>) {
    for a in &el.attrs {
        let name = a.name.as_str();
        if OBJECT_REFS.contains(&name) || OTHER_REFS.contains(&name) || name == "geom2" {
            out.push(a.value.clone());
        }
    }
    for c in &el.children {
        refs_of(c, out);
    }
}

/// Replays what MuJoCo's `replicate` does to elements outside the tree: an element that refers
/// to something inside a replicate is replaced by one copy per replica (names suffixed),
/// appended after the unaffected elements (MuJoCo attaches each copy, then deletes the
/// original together with the replicated subtree).
pub fn apply_replicates(root: &Element, reps: &[tree::Replicated], defs: &spec::Defaults, ex: &mut Extras) -> Res<()> {
    if reps.is_empty() {
        return Ok(());
    }
    // (kind, element) in the order the name lists were built
    let mut elems: Vec<(&str, &Element)> = Vec::new();
    for s in &root.children {
        let kinds: &[&str] = match s.name.as_str() {
            "tendon" => &["spatial", "fixed"],
            "equality" | "sensor" | "actuator" => &[],
            _ => continue,
        };
        for c in s.children.iter().filter(|c| kinds.is_empty() || kinds.contains(&c.name.as_str())) {
            if s.name == "actuator" && c.name == "plugin" {
                continue;
            }
            elems.push((s.name.as_str(), c));
        }
    }
    let (mut ten, mut eq, mut sen, mut act) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut ten_els, mut act_els) = (Vec::new(), Vec::new());
    let (mut na, mut nu) = (0, 0);
    // what each replicate copies: the names inside it, and the tendons all of whose references
    // are inside (measured with MuJoCo 4.0.0: an actuator on such a tendon is copied with it,
    // onto each copy, tests/copy_cases/replicate.xml)
    let copied_tendon = |rep: &tree::Replicated, el: &Element| {
        let mut r = Vec::new();
        refs_of(el, &mut r);
        !r.is_empty() && r.iter().all(|x| rep.names.contains(x))
    };
    let moved: Vec<Vec<String>> = reps
        .iter()
        .map(|rep| {
            let tendons = elems.iter().filter(|(k, el)| *k == "tendon" && copied_tendon(rep, el));
            let names = tendons.filter_map(|(_, el)| el.attr("name")).map(|a| a.value.clone());
            rep.names.iter().cloned().chain(names).collect()
        })
        .collect();
    let mut later: Vec<Vec<(&str, &Element)>> = vec![Vec::new(); reps.len()];
    for (kind, el) in &elems {
        let mut r = Vec::new();
        refs_of(el, &mut r);
        // measured with MuJoCo 4.0.0: a tendon is copied only when all its references are
        // inside the replicate; sensors and actuators follow their first (primary) reference,
        // e.g. a framepos sensor with refname="world" is copied; equalities: [`equality_fate`]
        if *kind == "equality" {
            match equality_fate(el, reps)? {
                EqFate::Keep => {}
                EqFate::Copy(k) => {
                    later[k].push((kind, el));
                    continue;
                }
                EqFate::Drop => continue,
            }
        } else if let Some(k) = (0..reps.len()).position(|k| match *kind {
            "tendon" => copied_tendon(&reps[k], el),
            "actuator" => r.first().is_some_and(|x| moved[k].contains(x)),
            _ => r.first().is_some_and(|x| reps[k].names.contains(x)),
        }) {
            later[k].push((kind, el));
            continue;
        }
        push_ref(kind, el, "", (&mut ten, &mut eq, &mut sen, &mut act), defs, (&mut na, &mut nu))?;
        push_el(kind, Placed::written(el), &mut ten_els, &mut act_els);
    }
    for (k, rep) in reps.iter().enumerate() {
        for suffix in &rep.suffixes {
            for (kind, el) in &later[k] {
                push_ref(kind, el, suffix, (&mut ten, &mut eq, &mut sen, &mut act), defs, (&mut na, &mut nu))?;
                push_el(kind, Placed::replica(el, suffix, &moved[k]), &mut ten_els, &mut act_els);
            }
        }
    }
    ex.tendons = ten;
    ex.equalities = eq;
    ex.sensors = sen;
    ex.actuators = act;
    ex.tendon_els = ten_els;
    ex.actuator_els = act_els;
    ex.na = na;
    ex.nu = nu;

    // contact pairs and excludes
    let (mut pairs, mut excl) = (Vec::new(), Vec::new());
    for s in root.children.iter().filter(|s| s.name == "contact") {
        contact::read_contact(s, defs, &mut pairs, &mut excl)?;
    }
    let inside = |n: &str| reps.iter().position(|rep| rep.names.iter().any(|x| x == n));
    let (mut p_out, mut p_later) = (Vec::new(), vec![Vec::new(); reps.len()]);
    for p in pairs {
        match inside(&p.geom1.0).or_else(|| inside(&p.geom2.0)) {
            Some(k) => p_later[k].push(p),
            None => p_out.push(p),
        }
    }
    for (k, rep) in reps.iter().enumerate() {
        for suffix in &rep.suffixes {
            for p in &p_later[k] {
                let mut q = p.clone();
                for g in [&mut q.geom1, &mut q.geom2] {
                    if rep.names.contains(&g.0) {
                        g.0 = format!("{}{suffix}", g.0);
                    }
                }
                if !q.name.is_empty() {
                    q.name = format!("{}{suffix}", q.name);
                }
                p_out.push(q);
            }
        }
    }
    // body '' is the replicate's own unnamed root, deleted with it: the exclude goes too when
    // its other body is known there (measured: exclude body1="" body2="pend" after an empty
    // replicate loads with no exclude; with pend after the replicate, "body '' not found")
    let known = |k: usize, n: &str| reps[k].holds("body", n) || reps[k].follows("body", n);
    let mut e_out: Vec<contact::RawExclude> = excl
        .into_iter()
        .filter(|e| {
            let unnamed = [&e.body1.0, &e.body2.0].iter().any(|n| n.is_empty());
            !(unnamed && (0..reps.len()).any(|k| [&e.body1.0, &e.body2.0].iter().all(|n| n.is_empty() || known(k, n))))
        })
        .collect();
    for (k, rep) in reps.iter().enumerate() {
        e_out = replicate_excludes(e_out, rep, &|n: &str| known(k, n));
    }
    ex.pairs = p_out;
    ex.excludes = e_out;
    Ok(())
}

/// The excludes after replicate `rep`, as MuJoCo 4.0.0 makes them: each copy (suffix `s`)
/// copies every exclude present then, its earlier copies included, whose bodies all exist
/// (`known`: made before the replicate or inside it, or an earlier copy's) and one of whose
/// body names `n` gives an existing body `n + s`, with those names suffixed; the template is
/// then deleted with every exclude that names one of its bodies. So an exclude of bodies
/// inside becomes one per copy, and one of bodies outside gains copies when a name plus a
/// suffix happens to name a body (measured: with body `a` beside a replicate of body `a1`,
/// count 3, exclude a/pend also gives pend/a12: copy 1 makes a1/pend, since `a1` exists,
/// copy 2 turns it into a12/pend, and the deletion of `a1` takes a1/pend).
fn replicate_excludes(
    excl: Vec<contact::RawExclude>,
    rep: &tree::Replicated,
    known: &dyn Fn(&str) -> bool,
) -> Vec<contact::RawExclude> {
    // whether body `n` exists: made before the replicate, inside it, or one of `copies`
    let present = |copies: &[String], n: &str| known(n) || copies.iter().any(|c| c == n);
    let mut list = excl;
    let mut copies: Vec<String> = Vec::new();
    let bodies: Vec<&String> = rep.inside.iter().filter(|(k, _)| *k == "body").map(|(_, n)| n).collect();
    for suffix in &rep.suffixes {
        copies.extend(bodies.iter().map(|n| format!("{n}{suffix}")));
        let exists = |n: &str| present(&copies, n);
        let mut made = Vec::new();
        for e in &list {
            if !exists(&e.body1.0) || !exists(&e.body2.0) {
                continue;
            }
            let mut q = e.clone();
            let mut hit = false;
            for b in [&mut q.body1, &mut q.body2] {
                let name = format!("{}{suffix}", b.0);
                if exists(&name) {
                    b.0 = name;
                    hit = true;
                }
            }
            if hit {
                made.push(q);
            }
        }
        list.extend(made);
    }
    // only an exclude whose bodies both resolve goes with the template (measured: exclude
    // bead/z with z after the replicate stays, and fails as "body 'bead' not found")
    list.retain(|e| {
        let resolved = present(&copies, &e.body1.0) && present(&copies, &e.body2.0);
        !(resolved && (rep.holds("body", &e.body1.0) || rep.holds("body", &e.body2.0)))
    });
    list
}

/// What the replicates do to an equality.
enum EqFate {
    /// Left as written.
    Keep,
    /// Copied for each replica of replicate `k`.
    Copy(usize),
    /// Deleted with a replicate's original.
    Drop,
}

/// Measured with MuJoCo 4.0.0: an equality is copied when all its objects (the world aside) are
/// inside one replicate, dropped when the others were all made before it (weld body1="bead"
/// body2="pend" with pend before the replicate gives neq 0; joint1/joint2 the same) or when its
/// first object is an empty body, the replicate's own unnamed root (weld body1="" after an
/// empty replicate: neq 0; an empty first joint, site or tendon is looked up as usual: the last
/// unnamed one, kept once); with an object made after the replicate it is kept, and its inside
/// object is unknown ("unknown element 'bead'").
fn equality_fate(el: &Element, reps: &[tree::Replicated]) -> Res<EqFate> {
    let objs: Vec<(&str, String)> = eq_objects(el).into_iter().filter(|(_, x)| x != "world").collect();
    let inside = |rep: &tree::Replicated, o: &(&str, String)| rep.holds(o.0, &o.1);
    let known = |rep: &tree::Replicated, o: &(&str, String)| inside(rep, o) || rep.follows(o.0, &o.1);
    let first_unnamed = el.attr("body1").is_some_and(|v| v.value.is_empty());
    if first_unnamed && reps.iter().any(|rep| objs.iter().all(|o| known(rep, o))) {
        return Ok(EqFate::Drop);
    }
    let hit = reps.iter().position(|rep| objs.iter().any(|o| inside(rep, o)) && objs.iter().all(|o| known(rep, o)));
    match hit {
        Some(k) if objs.iter().all(|o| inside(&reps[k], o)) => Ok(EqFate::Copy(k)),
        Some(_) => Ok(EqFate::Drop),
        None => match objs.iter().find(|o| reps.iter().any(|rep| inside(rep, o))) {
            Some((_, x)) => Err(super::attrs::err_at(el, format!("unknown element '{x}' in equality constraint"))),
            None => Ok(EqFate::Keep),
        },
    }
}

/// The objects an equality names, as (kind, name) (an empty second object is absent).
fn eq_objects(el: &Element) -> Vec<(&'static str, String)> {
    let pairs: [(&str, &'static str); 9] = [
        ("body1", "body"),
        ("body2", "body"),
        ("joint1", "joint"),
        ("joint2", "joint"),
        ("site1", "site"),
        ("site2", "site"),
        ("tendon1", "tendon"),
        ("tendon2", "tendon"),
        ("flex", "flex"),
    ];
    pairs
        .iter()
        .filter_map(|(attr, kind)| el.attr(attr).map(|a| (*kind, a.value.clone())))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// Keeps a tendon or actuator element (the other kinds are compiled from their names' lists).
fn push_el(kind: &str, p: Placed, tendons: &mut Vec<Placed>, actuators: &mut Vec<Placed>) {
    match kind {
        "tendon" => tendons.push(p),
        "actuator" => actuators.push(p),
        _ => {}
    }
}

type RefLists<'a> = (&'a mut Vec<String>, &'a mut Vec<String>, &'a mut Vec<String>, &'a mut Vec<String>);

fn push_ref(
    kind: &str,
    el: &Element,
    suffix: &str,
    lists: RefLists,
    defs: &spec::Defaults,
    (na, nu): (&mut usize, &mut usize),
) -> Res<()> {
    let name = match el.attr("name") {
        Some(a) if !a.value.is_empty() => format!("{}{suffix}", a.value),
        _ => String::new(),
    };
    match kind {
        "tendon" => lists.0.push(name),
        "equality" => lists.1.push(name),
        "sensor" => lists.2.push(name),
        _ => {
            lists.3.push(name);
            let (a, c) = act_and_controls(el, defs)?;
            *na += a;
            *nu += c;
        }
    }
    Ok(())
}

/// Appends the elements of an attached model that refer to its bodies (actuators, tendons,
/// sensors, equalities, contact pairs and excludes), with the attach prefix on every name;
/// `src` is the attached model's index among the sources.
pub fn append_referencing(
    child: &Element,
    prefix: &str,
    src: usize,
    defs: &spec::Defaults,
    ex: &mut Extras,
) -> Res<()> {
    let pre = |v: Vec<String>| v.into_iter().map(|n| if n.is_empty() { n } else { format!("{prefix}{n}") });
    for s in child.children.iter() {
        let mut names = Vec::new();
        match s.name.as_str() {
            "equality" => {
                names_of(s, &[], &mut names);
                ex.equalities.extend(pre(names));
            }
            "tendon" => {
                names_of(s, &["spatial", "fixed"], &mut names);
                ex.tendons.extend(pre(names));
                let els = s.children.iter().filter(|c| c.name == "spatial" || c.name == "fixed");
                ex.tendon_els.extend(els.map(|c| Placed::attached(c, prefix, src)));
            }
            "sensor" => {
                names_of(s, &[], &mut names);
                ex.sensors.extend(pre(names));
            }
            "actuator" => {
                for c in s.children.iter().filter(|c| c.name != "plugin") {
                    let n = c.attr("name").map(|a| a.value.clone()).unwrap_or_default();
                    ex.actuators.extend(pre(vec![n]));
                    ex.actuator_els.push(Placed::attached(c, prefix, src));
                    let (a, u) = act_and_controls(c, defs)?;
                    ex.na += a;
                    ex.nu += u;
                }
            }
            "contact" => {
                let (mut pairs, mut excl) = (Vec::new(), Vec::new());
                contact::read_contact(s, defs, &mut pairs, &mut excl)?;
                for mut p in pairs {
                    p.geom1.0 = format!("{prefix}{}", p.geom1.0);
                    p.geom2.0 = format!("{prefix}{}", p.geom2.0);
                    ex.pairs.push(p);
                }
                for mut e in excl {
                    e.body1.0 = format!("{prefix}{}", e.body1.0);
                    e.body2.0 = format!("{prefix}{}", e.body2.0);
                    ex.excludes.push(e);
                }
            }
            _ => {}
        }
    }
    Ok(())
}
