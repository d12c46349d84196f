//! A compiled MuJoCo model owned by Rust.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::path::Path;
use std::sync::Arc;

use mujoco_sys as sys;

use super::error::{guard, MjError};
use super::{boundary, prescreen};

/// Owner of one `mjModel*`; frees it on drop.
struct ModelPtr(*mut sys::mjModel);

// SAFETY: an mjModel is plain memory owned by this pointer; MuJoCo only reads it while stepping,
// and this wrapper hands out mutable access only through `&mut Model` with a unique Arc.
unsafe impl Send for ModelPtr {}
unsafe impl Sync for ModelPtr {}

impl Drop for ModelPtr {
    fn drop(&mut self) {
        // SAFETY: the pointer came from mj_loadXML / mj_copyModel and is freed once.
        let _ = guard(|| unsafe { sys::mj_deleteModel(self.0) });
    }
}

/// A compiled MuJoCo model (`mjModel`). Cheap to clone: clones share the model.
#[derive(Clone)]
pub struct Model {
    ptr: Arc<ModelPtr>,
}

/// Kinds of named objects, as MuJoCo's `mjtObj`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjType {
    /// A body.
    Body,
    /// A joint.
    Joint,
    /// A geom.
    Geom,
    /// A site.
    Site,
    /// A keyframe.
    Key,
    /// A custom numeric field.
    Numeric,
}

impl ObjType {
    fn raw(self) -> i32 {
        (match self {
            ObjType::Body => sys::mjOBJ_BODY,
            ObjType::Joint => sys::mjOBJ_JOINT,
            ObjType::Geom => sys::mjOBJ_GEOM,
            ObjType::Site => sys::mjOBJ_SITE,
            ObjType::Key => sys::mjOBJ_KEY,
            ObjType::Numeric => sys::mjOBJ_NUMERIC,
        }) as i32
    }
}

const ERROR_LEN: usize = 2048;

/// A failure inside MuJoCo's loader, reported as the file's compile error.
fn compile_error(file: &str, e: MjError) -> MjError {
    MjError::Compile { file: file.to_string(), message: e.to_string() }
}

fn error_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim().to_string()
}

impl Model {
    /// Compiles the MJCF (or URDF) file at `path` with MuJoCo's compiler.
    pub fn from_xml_path(path: impl AsRef<Path>) -> Result<Model, MjError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let cpath = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| MjError::Invalid(format!("{file}: path contains a NUL byte")))?;
        prescreen::check(prescreen::Source::Path(path), &file)?;
        let mut err = vec![0u8; ERROR_LEN];
        // SAFETY: valid NUL-terminated path, null VFS, error buffer of the stated size.
        let m = unsafe {
            boundary::load_xml(cpath.as_ptr(), std::ptr::null(), err.as_mut_ptr() as *mut c_char, ERROR_LEN as i32)
        }
        .map_err(|e| compile_error(&file, e))?;
        Self::from_raw_or_error(m, file, &err)
    }

    /// Compiles MJCF text held in memory (files it references are looked up relative to the
    /// current directory).
    pub fn from_xml_str(xml: &str) -> Result<Model, MjError> {
        prescreen::check(prescreen::Source::Text(xml), "<string>")?;
        Self::from_xml_str_unscreened(xml)
    }

    /// [`Model::from_xml_str`] without refusing first the inputs MuJoCo crashes or hangs on
    /// (`prescreen`): a test hook, so that MuJoCo's own C++ exceptions on such inputs still
    /// exercise the exception boundary.
    #[doc(hidden)]
    pub fn from_xml_str_unscreened(xml: &str) -> Result<Model, MjError> {
        let file = "<string>".to_string();
        let name = c"specula-model.xml";
        let mut err = vec![0u8; ERROR_LEN];
        let mut vfs = sys::mjVFS::default();
        // SAFETY: the VFS is initialised here and deleted below, after its last use; the buffer
        // is copied into it by mj_addBufferVFS.
        let added = guard(|| unsafe {
            sys::mj_defaultVFS(&mut vfs);
            sys::mj_addBufferVFS(&mut vfs, name.as_ptr(), xml.as_ptr() as *const _, xml.len() as i32)
        });
        let m = match added {
            // SAFETY: the name is NUL-terminated and held by the VFS; error buffer as stated.
            Ok(0) => unsafe {
                boundary::load_xml(name.as_ptr(), &vfs, err.as_mut_ptr() as *mut c_char, ERROR_LEN as i32)
            },
            Ok(_) => Ok(std::ptr::null_mut()),
            Err(e) => Err(e),
        };
        // SAFETY: initialised above (mj_defaultVFS runs first and cannot fail), not used afterwards.
        let _ = guard(|| unsafe { sys::mj_deleteVFS(&mut vfs) });
        let m = m.map_err(|e| compile_error(&file, e))?;
        Self::from_raw_or_error(m, file, &err)
    }

    fn from_raw_or_error(m: *mut sys::mjModel, file: String, err: &[u8]) -> Result<Model, MjError> {
        if m.is_null() {
            let message = error_text(err);
            let message = if message.is_empty() { "MuJoCo could not load the model".into() } else { message };
            return Err(MjError::Compile { file, message });
        }
        Ok(Model { ptr: Arc::new(ModelPtr(m)) })
    }

    /// The raw `mjModel` (for FFI; valid as long as this model lives).
    pub fn raw(&self) -> *const sys::mjModel {
        self.ptr.0
    }

    /// Mutable access to the raw `mjModel`, only when no clone or `Data` shares it.
    pub fn raw_mut(&mut self) -> Option<&mut sys::mjModel> {
        // SAFETY: a unique Arc means no one else can read the model while it is changed.
        Arc::get_mut(&mut self.ptr).map(|p| unsafe { &mut *p.0 })
    }

    /// The `mjModel` struct (sizes, options and array pointers).
    pub fn mj(&self) -> &sys::mjModel {
        // SAFETY: the pointer is valid and not mutated while shared.
        unsafe { &*self.ptr.0 }
    }

    /// The simulation timestep (`opt.timestep`).
    pub fn timestep(&self) -> f64 {
        self.mj().opt.timestep
    }

    /// Whether `<flag speculative="enable"/>` is on.
    pub fn speculative(&self) -> bool {
        self.mj().opt.enableflags & sys::mjENBL_SPECULATIVE as i32 != 0
    }

    /// Turns the `speculative` flag on or off; fails if the model is shared.
    pub fn set_speculative(&mut self, on: bool) -> Result<(), MjError> {
        let m = self
            .raw_mut()
            .ok_or_else(|| MjError::Invalid("cannot change a model that is shared with a Data or a clone".into()))?;
        let bit = sys::mjENBL_SPECULATIVE as i32;
        m.opt.enableflags = if on { m.opt.enableflags | bit } else { m.opt.enableflags & !bit };
        Ok(())
    }

    /// Sets the integrator (`opt.integrator`, MuJoCo's `mjtIntegrator` number); fails if shared.
    pub fn set_integrator(&mut self, integrator: i32) -> Result<(), MjError> {
        if !(0..=4).contains(&integrator) {
            return Err(MjError::Invalid(format!("integrator {integrator} does not exist")));
        }
        let m = self
            .raw_mut()
            .ok_or_else(|| MjError::Invalid("cannot change a model that is shared with a Data or a clone".into()))?;
        m.opt.integrator = integrator;
        Ok(())
    }

    /// Number of bodies, including the world body.
    pub fn nbody(&self) -> usize {
        self.mj().nbody as usize
    }

    /// Number of geoms.
    pub fn ngeom(&self) -> usize {
        self.mj().ngeom as usize
    }

    /// Number of keyframes.
    pub fn nkey(&self) -> usize {
        self.mj().nkey as usize
    }

    /// The id of the object of kind `ty` called `name`.
    pub fn id(&self, ty: ObjType, name: &str) -> Option<usize> {
        let cname = CString::new(name).ok()?;
        // SAFETY: valid model and NUL-terminated name.
        let id = guard(|| unsafe { sys::mj_name2id(self.raw(), ty.raw(), cname.as_ptr()) }).ok()?;
        (id >= 0).then_some(id as usize)
    }

    /// Whether the model asks for specula's robust speculative mode (a custom numeric
    /// `specula_robust` whose first value is not 0; MuJoCo itself ignores it).
    pub fn asks_robust(&self) -> bool {
        super::from_c::asks_robust(self.mj())
    }

    /// The name of object `id` of kind `ty` (empty when it has none or `id` is out of range).
    pub fn name(&self, ty: ObjType, id: usize) -> String {
        // SAFETY: valid model; MuJoCo returns null for out-of-range ids and unnamed objects.
        let p = guard(|| unsafe { sys::mj_id2name(self.raw(), ty.raw(), id as i32) }).unwrap_or(std::ptr::null());
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: MuJoCo's names are NUL-terminated strings inside the model.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("nbody", &self.nbody()).field("ngeom", &self.ngeom()).finish()
    }
}
