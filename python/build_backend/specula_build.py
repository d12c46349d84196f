"""maturin's PEP 517 build backend, with MUJOCO_DIR set for the Rust build.

The Rust crates compile against MuJoCo 4.0.0's headers and link its library by soname
(mujoco-sys/build.rs). Both are in the `mujoco` package folder of mujoco-core 4.0.0, which
pyproject.toml lists as a build requirement; this backend points MUJOCO_DIR at that folder so the
build does not download MuJoCo a second time. A MUJOCO_DIR already set is kept.
"""

import importlib.util
import os

import maturin

SONAME = "libmujoco.so.4.0.0"


def _set_mujoco_dir():
    if os.environ.get("MUJOCO_DIR"):
        return
    spec = importlib.util.find_spec("mujoco")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if os.path.isfile(os.path.join(folder, SONAME)) and os.path.isfile(
            os.path.join(folder, "include", "mujoco", "mujoco.h")
        ):
            os.environ["MUJOCO_DIR"] = folder
            return


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _set_mujoco_dir()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _set_mujoco_dir()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


build_sdist = maturin.build_sdist
get_requires_for_build_wheel = maturin.get_requires_for_build_wheel
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist
get_requires_for_build_editable = maturin.get_requires_for_build_editable
prepare_metadata_for_build_wheel = maturin.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = maturin.prepare_metadata_for_build_editable
