//! Sensors: the `sensor_*` arrays as MuJoCo 4.0.0's compiler leaves them (`docs/measurements.md`
//! M13).
//!
//! Algorithm:
//! 1. Each element's tag gives its type (`mjtSensor`) and which attribute names the measured
//!    object and of which kind (a frame sensor says so in `objtype`); the reference frame, when
//!    the kind has one, comes from `reftype`/`refname`. A body object counts as `mjOBJ_BODY`
//!    (its inertial frame), `xbody` as its regular frame; both hold the body id.
//! 2. Data type, needed stage and dimension follow from the type alone; an actuator sensor has
//!    one value per force output of its actuator.
//! 3. Values are laid out in sensor order (`sensor_adr`); user values are padded with zeros to
//!    `nuser_sensor` (its `<size>` value, or the longest `user` list).
//!
//! Kinds left out (the arrays stay empty and `Model::sensor_unsupported` says why): contact,
//! rangefinder, camera projection, tactile, geom distance, user and plugin sensors, sensors on
//! cameras, sensors with a history buffer, delay or interval, and sensors changed by
//! `replicate` or `attach`.

use super::attrs::{err_at, int, num, vec, Res};
use crate::model::Model;
use crate::xml::Element;

/// `mjOBJ_BODY`.
pub const OBJ_BODY: i32 = 1;
/// `mjOBJ_XBODY`.
pub const OBJ_XBODY: i32 = 2;
/// `mjOBJ_JOINT`.
pub const OBJ_JOINT: i32 = 3;
/// `mjOBJ_GEOM`.
pub const OBJ_GEOM: i32 = 5;
/// `mjOBJ_SITE`.
pub const OBJ_SITE: i32 = 6;
/// `mjOBJ_CAMERA`.
pub const OBJ_CAMERA: i32 = 7;
/// `mjOBJ_TENDON`.
pub const OBJ_TENDON: i32 = 18;
/// `mjOBJ_ACTUATOR`.
pub const OBJ_ACTUATOR: i32 = 19;

/// `mjtSensor` numbers of the kinds this compiler produces (MuJoCo 4.0.0's `mjtype.h`).
#[allow(missing_docs)]
pub mod kind {
    pub const TOUCH: i32 = 0;
    pub const ACCELEROMETER: i32 = 1;
    pub const VELOCIMETER: i32 = 2;
    pub const GYRO: i32 = 3;
    pub const FORCE: i32 = 4;
    pub const TORQUE: i32 = 5;
    pub const MAGNETOMETER: i32 = 6;
    pub const JOINTPOS: i32 = 9;
    pub const JOINTVEL: i32 = 10;
    pub const TENDONPOS: i32 = 11;
    pub const TENDONVEL: i32 = 12;
    pub const ACTUATORPOS: i32 = 13;
    pub const ACTUATORVEL: i32 = 14;
    pub const ACTUATORFRC: i32 = 15;
    pub const JOINTACTFRC: i32 = 16;
    pub const TENDONACTFRC: i32 = 17;
    pub const BALLQUAT: i32 = 18;
    pub const BALLANGVEL: i32 = 19;
    pub const JOINTLIMITPOS: i32 = 20;
    pub const JOINTLIMITVEL: i32 = 21;
    pub const JOINTLIMITFRC: i32 = 22;
    pub const TENDONLIMITPOS: i32 = 23;
    pub const TENDONLIMITVEL: i32 = 24;
    pub const TENDONLIMITFRC: i32 = 25;
    pub const FRAMEPOS: i32 = 26;
    pub const FRAMEQUAT: i32 = 27;
    pub const FRAMEXAXIS: i32 = 28;
    pub const FRAMEYAXIS: i32 = 29;
    pub const FRAMEZAXIS: i32 = 30;
    pub const FRAMELINVEL: i32 = 31;
    pub const FRAMEANGVEL: i32 = 32;
    pub const FRAMELINACC: i32 = 33;
    pub const FRAMEANGACC: i32 = 34;
    pub const SUBTREECOM: i32 = 35;
    pub const SUBTREELINVEL: i32 = 36;
    pub const SUBTREEANGMOM: i32 = 37;
    pub const INSIDESITE: i32 = 38;
    pub const E_POTENTIAL: i32 = 43;
    pub const E_KINETIC: i32 = 44;
    pub const CLOCK: i32 = 45;
}

/// How a tag names its object: a fixed attribute and kind, or `objtype`/`objname`.
#[derive(Clone, Copy)]
enum Obj {
    /// No object (clock, energies).
    None,
    /// The attribute holding the name, and the object kind.
    Fixed(&'static str, i32),
    /// `objtype` and `objname` (frame sensors); the bool: a reference frame is read.
    Frame(bool),
}

/// The tag's type and how it names its object, for the kinds compiled here.
fn tag_kind(tag: &str) -> Option<(i32, Obj)> {
    use kind::*;
    use Obj::{Fixed, Frame};
    let site = |t| (t, Fixed("site", OBJ_SITE));
    let joint = |t| (t, Fixed("joint", OBJ_JOINT));
    let tendon = |t| (t, Fixed("tendon", OBJ_TENDON));
    let actuator = |t| (t, Fixed("actuator", OBJ_ACTUATOR));
    let body = |t| (t, Fixed("body", OBJ_BODY));
    Some(match tag {
        "touch" => site(TOUCH),
        "accelerometer" => site(ACCELEROMETER),
        "velocimeter" => site(VELOCIMETER),
        "gyro" => site(GYRO),
        "force" => site(FORCE),
        "torque" => site(TORQUE),
        "magnetometer" => site(MAGNETOMETER),
        "jointpos" => joint(JOINTPOS),
        "jointvel" => joint(JOINTVEL),
        "tendonpos" => tendon(TENDONPOS),
        "tendonvel" => tendon(TENDONVEL),
        "actuatorpos" => actuator(ACTUATORPOS),
        "actuatorvel" => actuator(ACTUATORVEL),
        "actuatorfrc" => actuator(ACTUATORFRC),
        "jointactuatorfrc" => joint(JOINTACTFRC),
        "tendonactuatorfrc" => tendon(TENDONACTFRC),
        "ballquat" => joint(BALLQUAT),
        "ballangvel" => joint(BALLANGVEL),
        "jointlimitpos" => joint(JOINTLIMITPOS),
        "jointlimitvel" => joint(JOINTLIMITVEL),
        "jointlimitfrc" => joint(JOINTLIMITFRC),
        "tendonlimitpos" => tendon(TENDONLIMITPOS),
        "tendonlimitvel" => tendon(TENDONLIMITVEL),
        "tendonlimitfrc" => tendon(TENDONLIMITFRC),
        "framepos" => (FRAMEPOS, Frame(true)),
        "framequat" => (FRAMEQUAT, Frame(true)),
        "framexaxis" => (FRAMEXAXIS, Frame(true)),
        "frameyaxis" => (FRAMEYAXIS, Frame(true)),
        "framezaxis" => (FRAMEZAXIS, Frame(true)),
        "framelinvel" => (FRAMELINVEL, Frame(true)),
        "frameangvel" => (FRAMEANGVEL, Frame(true)),
        "framelinacc" => (FRAMELINACC, Frame(false)),
        "frameangacc" => (FRAMEANGACC, Frame(false)),
        "subtreecom" => body(SUBTREECOM),
        "subtreelinvel" => body(SUBTREELINVEL),
        "subtreeangmom" => body(SUBTREEANGMOM),
        "e_potential" => (E_POTENTIAL, Obj::None),
        "e_kinetic" => (E_KINETIC, Obj::None),
        "clock" => (CLOCK, Obj::None),
        _ => return None,
    })
}

/// `mjtDataType` of a type: 1 positive (touch), 2 axis, 3 quaternion, else 0 real.
pub fn datatype(t: i32) -> i32 {
    use kind::*;
    match t {
        TOUCH | INSIDESITE => 1,
        FRAMEXAXIS | FRAMEYAXIS | FRAMEZAXIS => 2,
        BALLQUAT | FRAMEQUAT => 3,
        _ => 0,
    }
}

/// `mjtStage` a type needs: 1 position, 2 velocity, 3 acceleration.
pub fn needstage(t: i32) -> i32 {
    use kind::*;
    match t {
        TOUCH | ACCELEROMETER | FORCE | TORQUE | ACTUATORFRC | JOINTACTFRC | TENDONACTFRC | JOINTLIMITFRC
        | TENDONLIMITFRC | FRAMELINACC | FRAMEANGACC => 3,
        VELOCIMETER | GYRO | JOINTVEL | TENDONVEL | ACTUATORVEL | BALLANGVEL | JOINTLIMITVEL | TENDONLIMITVEL
        | FRAMELINVEL | FRAMEANGVEL | SUBTREELINVEL | SUBTREEANGMOM => 2,
        _ => 1,
    }
}

/// Number of values of a type (actuator sensors: set from the actuator instead).
fn dim_of(t: i32) -> i32 {
    use kind::*;
    match t {
        BALLQUAT | FRAMEQUAT => 4,
        ACCELEROMETER
        | VELOCIMETER
        | GYRO
        | FORCE
        | TORQUE
        | MAGNETOMETER
        | BALLANGVEL
        | FRAMEPOS
        | FRAMEXAXIS..=FRAMEANGACC
        | SUBTREECOM..=SUBTREEANGMOM => 3,
        _ => 1,
    }
}

/// The kind numbers of `objtype`/`reftype` keywords.
fn frame_type(word: &str) -> Option<i32> {
    Some(match word.trim() {
        "body" => OBJ_BODY,
        "xbody" => OBJ_XBODY,
        "geom" => OBJ_GEOM,
        "site" => OBJ_SITE,
        "camera" => OBJ_CAMERA,
        _ => return None,
    })
}

/// Id of the object of kind `ty` named `name`; `Err(why)` when specula cannot resolve it.
fn object_id(m: &Model, ty: i32, name: &str) -> Result<usize, String> {
    let names = match ty {
        OBJ_BODY | OBJ_XBODY => &m.body_names,
        OBJ_JOINT => &m.jnt_names,
        OBJ_GEOM => &m.geom_names,
        OBJ_SITE => &m.site_names,
        OBJ_TENDON => &m.tendon_names,
        OBJ_ACTUATOR => &m.actuator_names,
        _ => return Err("a sensor on a camera".into()),
    };
    names.iter().position(|n| n == name).ok_or_else(|| format!("unresolved object '{name}'"))
}

/// One compiled sensor.
struct Sensor {
    ty: i32,
    obj: (i32, i32),
    refr: (i32, i32),
    dim: i32,
    cutoff: f64,
    noise: f64,
    user: Vec<f64>,
}

/// Compiles one sensor element; `Ok(Err(why))` for a kind or object left out.
fn compile_one(el: &Element, m: &Model) -> Res<Result<Sensor, String>> {
    let Some((ty, how)) = tag_kind(&el.name) else { return Ok(Err(format!("{} sensor", el.name))) };
    for a in ["nsample", "delay", "interval"] {
        if el.attr(a).is_some() {
            return Ok(Err(format!("a sensor with '{a}' (history buffers)")));
        }
    }
    let text = |a: &str| el.attr(a).map_or("", |a| a.value.as_str());
    let (mut obj, mut refr) = ((0, -1), (0, -1));
    let resolve = |ty: i32, name: &str| object_id(m, ty, name).map(|id| (ty, id as i32));
    match how {
        Obj::None => {}
        Obj::Fixed(attr, k) => match resolve(k, text(attr)) {
            Ok(o) => obj = o,
            Err(why) => return Ok(Err(why)),
        },
        Obj::Frame(with_ref) => {
            let Some(k) = frame_type(text("objtype")) else { return Ok(Err("a frame sensor's objtype".into())) };
            match resolve(k, text("objname")) {
                Ok(o) => obj = o,
                Err(why) => return Ok(Err(why)),
            }
            if let (true, Some(t)) = (with_ref, el.attr("reftype")) {
                let Some(k) = frame_type(&t.value) else { return Ok(Err("a frame sensor's reftype".into())) };
                match resolve(k, text("refname")) {
                    Ok(r) => refr = r,
                    Err(why) => return Ok(Err(why)),
                }
            }
        }
    }
    let mut dim = dim_of(ty);
    if matches!(ty, kind::ACTUATORPOS | kind::ACTUATORVEL | kind::ACTUATORFRC) {
        match m.actuator_outnum.get(obj.1 as usize) {
            Some(&n) => dim = n,
            None => return Ok(Err("actuator sensors on actuators specula did not compile".into())),
        }
    }
    let (mut cutoff, mut noise) = (0.0, 0.0);
    num(el, "cutoff", &mut cutoff)?;
    num(el, "noise", &mut noise)?;
    if cutoff > 0.0 && datatype(ty) >= 2 {
        return Err(err_at(el, "cutoff applied to axis or quaternion datatype in sensor"));
    }
    let user = vec(el, "user")?.unwrap_or_default();
    Ok(Ok(Sensor { ty, obj, refr, dim, cutoff, noise, user }))
}

/// `<size nuser_sensor>` (the last one given), -1 when absent.
fn nuser_given(root: &Element) -> Res<i32> {
    let mut n = -1;
    for s in root.children.iter().filter(|c| c.name == "size") {
        int(s, "nuser_sensor", &mut n)?;
    }
    Ok(n)
}

/// Compiles the `sensor` sections of `root` into `m` (its names, `nsensor`, joints, tendons and
/// actuators already set).
pub fn compile_sensors(root: &Element, m: &mut Model) -> Res<()> {
    let els: Vec<&Element> = root.children.iter().filter(|c| c.name == "sensor").flat_map(|s| &s.children).collect();
    let direct: Vec<String> = els.iter().map(|c| c.attr("name").map(|a| a.value.clone()).unwrap_or_default()).collect();
    if direct != m.sensor_names {
        m.sensor_unsupported = Some("sensors changed by replicate or attach".into());
        return Ok(());
    }
    let mut all = Vec::with_capacity(els.len());
    for el in &els {
        match compile_one(el, m)? {
            Ok(s) => all.push(s),
            Err(why) => {
                m.sensor_unsupported = Some(why);
                return Ok(());
            }
        }
    }
    let longest = all.iter().map(|s| s.user.len()).max().unwrap_or(0);
    let nuser = match nuser_given(root)? {
        -1 => longest,
        n => {
            if let Some(i) = all.iter().position(|s| s.user.len() as i64 > i64::from(n)) {
                return Err(err_at(els[i], "user has more values than nuser_sensor in sensor"));
            }
            n.max(0) as usize
        }
    };
    m.nuser_sensor = nuser;
    let mut adr = 0;
    for s in &all {
        m.sensor_type.push(s.ty);
        m.sensor_datatype.push(datatype(s.ty));
        m.sensor_needstage.push(needstage(s.ty));
        m.sensor_objtype.push(s.obj.0);
        m.sensor_objid.push(s.obj.1);
        m.sensor_reftype.push(s.refr.0);
        m.sensor_refid.push(s.refr.1);
        m.sensor_intprm.push([0; 3]);
        m.sensor_dim.push(s.dim);
        m.sensor_adr.push(adr);
        adr += s.dim;
        m.sensor_cutoff.push(s.cutoff);
        m.sensor_noise.push(s.noise);
        m.sensor_user.extend(s.user.iter().copied().chain(std::iter::repeat(0.0)).take(nuser));
    }
    m.nsensordata = adr as usize;
    Ok(())
}
