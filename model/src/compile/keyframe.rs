//! Keyframes: values given in `key` elements, the rest filled from the default pose.

use super::attrs::{num, vec, Res};
use super::math::{normalize4, normvec};
use crate::error::{MjcfError, Position};
use crate::model::Model;
use crate::types::JointType;
use crate::xml::Element;

/// A keyframe as read.
#[derive(Clone, Debug, Default)]
pub struct RawKey {
    /// Name.
    pub name: String,
    /// Time.
    pub time: f64,
    /// qpos, qvel, act, mpos, mquat, ctrl as given (`None` when absent).
    pub data: [Option<Vec<f64>>; 6],
    /// Element position (None for keys added by `size nkey`).
    pub pos: Option<Position>,
}

const FIELDS: [&str; 6] = ["qpos", "qvel", "act", "mpos", "mquat", "ctrl"];

/// Reads a `keyframe` section.
pub fn read_keyframe(el: &Element, keys: &mut Vec<RawKey>) -> Res<()> {
    for k in el.children.iter().filter(|c| c.name == "key") {
        let mut key = RawKey {
            name: k.attr("name").map(|a| a.value.clone()).unwrap_or_default(),
            pos: Some(k.pos.clone()),
            ..Default::default()
        };
        num(k, "time", &mut key.time)?;
        for (i, f) in FIELDS.iter().enumerate() {
            key.data[i] = vec(k, f)?.filter(|v| !v.is_empty());
        }
        keys.push(key);
    }
    Ok(())
}

/// Fills the model's key arrays; sizes are checked against the compiled model.
pub fn compile_keys(m: &mut Model, keys: &[RawKey]) -> Res<()> {
    m.nkey = keys.len();
    let mut mpos0 = vec![0.0; 3 * m.nmocap];
    let mut mquat0 = vec![0.0; 4 * m.nmocap];
    for b in 0..m.nbody {
        if let Ok(id) = usize::try_from(m.body_mocapid[b]) {
            mpos0[3 * id..3 * id + 3].copy_from_slice(&m.body_pos[b]);
            mquat0[4 * id..4 * id + 4].copy_from_slice(&m.body_quat[b]);
        }
    }
    let na = m.na;
    let sizes = [m.nq, m.nv, na, 3 * m.nmocap, 4 * m.nmocap, m.nu];
    for key in keys {
        m.key_names.push(key.name.clone());
        m.key_time.push(key.time);
        for (i, given) in key.data.iter().enumerate() {
            let default = || match i {
                0 => m.qpos0.clone(),
                3 => mpos0.clone(),
                4 => mquat0.clone(),
                _ => vec![0.0; sizes[i]],
            };
            let v = match given {
                None => default(),
                // MuJoCo 4.0.0 takes a shorter list as the leading values and the default pose
                // for the rest (measured: `qpos="0.5"` on a hinge and a ball joint loads as
                // 0.5 1 0 0 0, and short qvel, act, ctrl and mpos load); only a longer one fails.
                Some(v) if v.len() <= sizes[i] => {
                    let mut full = default();
                    full[..v.len()].copy_from_slice(v);
                    full
                }
                Some(v) => {
                    let pos = key.pos.clone().unwrap_or_else(|| Position {
                        file: std::sync::Arc::new("<model>".into()),
                        line: 0,
                        col: 0,
                    });
                    return Err(MjcfError::new(
                        pos,
                        format!(
                            "keyframe '{}': invalid {} size, expected {}, got {}",
                            key.name,
                            FIELDS[i],
                            sizes[i],
                            v.len()
                        ),
                    ));
                }
            };
            let dst = match i {
                0 => &mut m.key_qpos,
                1 => &mut m.key_qvel,
                2 => &mut m.key_act,
                3 => &mut m.key_mpos,
                4 => &mut m.key_mquat,
                _ => &mut m.key_ctrl,
            };
            dst.extend_from_slice(&v);
        }
        normalize_key_quats(m);
    }
    Ok(())
}

/// Normalises the quaternions of the last key: ball/free joint quaternions (first with the
/// compiler's divide-by-norm, then again with the engine's multiply-by-inverse, as MuJoCo's
/// compiler and `mj_normalizeQuat` do in turn) and mocap quaternions.
fn normalize_key_quats(m: &mut Model) {
    let k = m.key_time.len() - 1;
    for j in 0..m.njnt {
        let off = match m.jnt_type[j] {
            JointType::Free => 3,
            JointType::Ball => 0,
            _ => continue,
        };
        let a = k * m.nq + m.jnt_qposadr[j] + off;
        let mut q = [m.key_qpos[a], m.key_qpos[a + 1], m.key_qpos[a + 2], m.key_qpos[a + 3]];
        normvec(&mut q);
        normalize4(&mut q);
        m.key_qpos[a..a + 4].copy_from_slice(&q);
    }
    for j in 0..m.nmocap {
        let a = k * 4 * m.nmocap + 4 * j;
        normvec(&mut m.key_mquat[a..a + 4]);
    }
}

/// Appends the keyframes of an attached model `cm`: values of its joints (matched by the
/// prefixed joint name) and actuators are copied; everything else takes the default pose.
pub fn append_attached_keys(m: &mut Model, cm: &Model, prefix: &str) {
    for k in 0..cm.nkey {
        let mut qpos = m.qpos0.clone();
        let mut qvel = vec![0.0; m.nv];
        for j in 0..cm.njnt {
            let name = format!("{prefix}{}", cm.jnt_names[j]);
            let t = cm.jnt_type[j];
            let Some(pj) = m.jnt_names.iter().position(|n| *n == name && !cm.jnt_names[j].is_empty()) else {
                continue;
            };
            if m.jnt_type[pj] != t {
                continue;
            }
            let (src_q, dst_q) = (k * cm.nq + cm.jnt_qposadr[j], m.jnt_qposadr[pj]);
            qpos[dst_q..dst_q + t.nq()].copy_from_slice(&cm.key_qpos[src_q..src_q + t.nq()]);
            let (src_v, dst_v) = (k * cm.nv + cm.jnt_dofadr[j], m.jnt_dofadr[pj]);
            qvel[dst_v..dst_v + t.nv()].copy_from_slice(&cm.key_qvel[src_v..src_v + t.nv()]);
        }
        let mut ctrl = vec![0.0; m.nu];
        if cm.nu == cm.nactuator && m.nu == m.nactuator {
            for a in 0..cm.nactuator {
                let name = format!("{prefix}{}", cm.actuator_names[a]);
                if let Some(pa) = m.actuator_names.iter().position(|n| *n == name && !cm.actuator_names[a].is_empty()) {
                    ctrl[pa] = cm.key_ctrl[k * cm.nu + a];
                }
            }
        }
        let name = if cm.key_names[k].is_empty() { String::new() } else { format!("{prefix}{}", cm.key_names[k]) };
        m.key_names.push(name);
        m.key_time.push(cm.key_time[k]);
        m.key_qpos.extend_from_slice(&qpos);
        m.key_qvel.extend_from_slice(&qvel);
        m.key_act.extend(std::iter::repeat_n(0.0, m.na));
        let key = compile_default_mocap(m);
        m.key_mpos.extend_from_slice(&key.0);
        m.key_mquat.extend_from_slice(&key.1);
        m.key_ctrl.extend_from_slice(&ctrl);
        m.nkey += 1;
    }
}

/// Mocap positions and orientations at the default pose.
fn compile_default_mocap(m: &Model) -> (Vec<f64>, Vec<f64>) {
    let mut mpos = vec![0.0; 3 * m.nmocap];
    let mut mquat = vec![0.0; 4 * m.nmocap];
    for b in 0..m.nbody {
        if let Ok(id) = usize::try_from(m.body_mocapid[b]) {
            mpos[3 * id..3 * id + 3].copy_from_slice(&m.body_pos[b]);
            mquat[4 * id..4 * id + 4].copy_from_slice(&m.body_quat[b]);
        }
    }
    (mpos, mquat)
}
