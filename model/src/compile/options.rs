//! The `compiler`, `option` (with its `flag` child) and `size` sections.

use super::attrs::{arr, boolean, err_at, err_attr, int, ints, keyword, num, string, Res, FALSE_TRUE_AUTO};
use super::body::CompilerSettings;
use crate::model::Options;
use crate::types::{Cone, Integrator, Jacobian, Solver, DISABLE_FLAGS, ENABLE_FLAGS};
use crate::xml::Element;

/// Reads a `compiler` section on top of `cs`.
pub fn read_compiler(el: &Element, cs: &mut CompilerSettings) -> Res<()> {
    if let Some(c) = keyword(el, "coordinate", &[("local", 0), ("global", 1)])? {
        if c == 1 {
            return Err(err_at(
                el,
                "global coordinates no longer supported. To convert existing models, load and save them in \
                 MuJoCo 2.3.3 or older",
            ));
        }
    }
    if let Some(d) = string(el, "assetdir") {
        cs.meshdir = d.clone();
        cs.texturedir = d;
    }
    boolean(el, "autolimits", &mut cs.autolimits)?;
    num(el, "boundmass", &mut cs.boundmass)?;
    num(el, "boundinertia", &mut cs.boundinertia)?;
    num(el, "settotalmass", &mut cs.settotalmass)?;
    boolean(el, "balanceinertia", &mut cs.balanceinertia)?;
    if let Some(d) = keyword(el, "angle", &[("radian", false), ("degree", true)])? {
        cs.conv.degree = d;
    }
    if let Some(a) = el.attr("eulerseq") {
        let v = a.raw_bytes();
        if v.len() != 3 {
            return Err(err_attr(a, "attribute 'eulerseq' must have exactly 3 characters"));
        }
        cs.conv.eulerseq = [v[0], v[1], v[2]];
    }
    if let Some(d) = string(el, "meshdir") {
        cs.meshdir = d;
    }
    if let Some(d) = string(el, "texturedir") {
        cs.texturedir = d;
    }
    boolean(el, "discardvisual", &mut cs.discardvisual)?;
    boolean(el, "fusestatic", &mut cs.fusestatic)?;
    if let Some(v) = keyword(el, "inertiafromgeom", &FALSE_TRUE_AUTO)? {
        cs.inertiafromgeom = v;
    }
    if let Some(a) = el.attr("inertiagrouprange") {
        let v = ints(a)?;
        if v.len() != 2 {
            return Err(err_attr(a, "attribute 'inertiagrouprange' expects 2 integers"));
        }
        cs.inertiagrouprange = [v[0], v[1]];
    }
    boolean(el, "alignfree", &mut cs.alignfree)?;
    boolean(el, "fitaabb", &mut cs.fitaabb)?;
    Ok(())
}

/// Reads an `option` section (and its `flag` child) on top of `o`.
pub fn read_option(el: &Element, o: &mut Options) -> Res<()> {
    num(el, "timestep", &mut o.timestep)?;
    num(el, "impratio", &mut o.impratio)?;
    num(el, "tolerance", &mut o.tolerance)?;
    num(el, "ls_tolerance", &mut o.ls_tolerance)?;
    num(el, "noslip_tolerance", &mut o.noslip_tolerance)?;
    num(el, "ccd_tolerance", &mut o.ccd_tolerance)?;
    num(el, "sleep_tolerance", &mut o.sleep_tolerance)?;
    arr(el, "gravity", &mut o.gravity, true)?;
    arr(el, "wind", &mut o.wind, true)?;
    arr(el, "magnetic", &mut o.magnetic, true)?;
    num(el, "density", &mut o.density)?;
    num(el, "viscosity", &mut o.viscosity)?;
    num(el, "o_margin", &mut o.o_margin)?;
    arr(el, "o_solref", &mut o.o_solref, false)?;
    arr(el, "o_solimp", &mut o.o_solimp, false)?;
    arr(el, "o_friction", &mut o.o_friction, false)?;
    let integrators = [
        ("Euler", Integrator::Euler),
        ("RK4", Integrator::Rk4),
        ("implicit", Integrator::Implicit),
        ("implicitfast", Integrator::ImplicitFast),
        ("discrete", Integrator::Discrete),
    ];
    if let Some(v) = keyword(el, "integrator", &integrators)? {
        o.integrator = v;
    }
    if let Some(v) = keyword(el, "cone", &[("pyramidal", Cone::Pyramidal), ("elliptic", Cone::Elliptic)])? {
        o.cone = v;
    }
    let jac = [("dense", Jacobian::Dense), ("sparse", Jacobian::Sparse), ("auto", Jacobian::Auto)];
    if let Some(v) = keyword(el, "jacobian", &jac)? {
        o.jacobian = v;
    }
    if let Some(v) = keyword(el, "solver", &[("PGS", Solver::Pgs), ("CG", Solver::Cg), ("Newton", Solver::Newton)])? {
        o.solver = v;
    }
    int(el, "iterations", &mut o.iterations)?;
    int(el, "ls_iterations", &mut o.ls_iterations)?;
    int(el, "noslip_iterations", &mut o.noslip_iterations)?;
    int(el, "ccd_iterations", &mut o.ccd_iterations)?;
    int(el, "sdf_iterations", &mut o.sdf_iterations)?;
    int(el, "sdf_initpoints", &mut o.sdf_initpoints)?;
    if let Some(a) = el.attr("actuatorgroupdisable") {
        for g in ints(a)? {
            if g < 0 {
                return Err(err_attr(a, "disabled actuator group value must be non-negative"));
            }
            if g > 30 {
                return Err(err_attr(a, "disabled actuator group value cannot exceed 30"));
            }
            o.disableactuator |= 1 << g;
        }
    }
    if let Some(f) = el.children.iter().find(|c| c.name == "flag") {
        let onoff = [("disable", false), ("enable", true)];
        for (name, bit) in DISABLE_FLAGS {
            if let Some(on) = keyword(f, name, &onoff)? {
                o.disableflags = if on { o.disableflags & !bit } else { o.disableflags | bit };
            }
        }
        for (name, bit) in ENABLE_FLAGS {
            if let Some(on) = keyword(f, name, &onoff)? {
                o.enableflags = if on { o.enableflags | bit } else { o.enableflags & !bit };
            }
        }
    }
    Ok(())
}

/// Reads `size nkey` (the only `size` attribute that changes compiled arrays here).
pub fn read_size(el: &Element, nkey: &mut i32) -> Res<()> {
    int(el, "nkey", nkey)?;
    Ok(())
}
