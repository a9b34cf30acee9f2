"""Builds the extension module `icl_verify` for `pip install .` (pyproject.toml) with the project's CMake build.

The module is the CMake target icl_verify_python (CMakeLists.txt, python/icl_verify_module.cpp): it is configured
for the interpreter that runs pip (-DPython_EXECUTABLE), with the tests and benchmarks left out, built, and copied
to where setuptools puts the extension. The version is the CMake project's.

Environment:
  ICL_VERIFY_BUILD_DIR        the CMake build folder (default: build/pip/cmake-<python tag> under this folder;
                              a relative path is taken from this folder). Kept between installs, so a second
                              install rebuilds only what changed.
  CMAKE_BUILD_PARALLEL_LEVEL  parallel compile jobs (default: the number of cores).
  ICL_VERIFY_PREBUILT_MODULE  a module the project's CMake build already made for this interpreter (the file
                              build/python/icl_verify<EXT_SUFFIX>): installed as it is, nothing compiled. ctest
                              python_install uses it where no compiler cache would spare the rebuild.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(\s*icl_verify\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text)
    if not m:
        raise RuntimeError("CMakeLists.txt: no 'project(icl_verify VERSION x.y.z)'")
    return m.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if shutil.which("cmake") is None:
            raise RuntimeError("icl_verify: cmake not found (Debian: apt-get install cmake)")
        target = Path(self.get_ext_fullpath(ext.name))
        prebuilt = os.environ.get("ICL_VERIFY_PREBUILT_MODULE")
        if prebuilt:
            suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
            if not prebuilt.endswith(suffix) or not Path(prebuilt).is_file():
                raise RuntimeError(f"icl_verify: ICL_VERIFY_PREBUILT_MODULE={prebuilt} is not a module file for "
                                   f"this interpreter (*{suffix})")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(prebuilt, target)
            return
        tag = sysconfig.get_config_var("SOABI") or f"py{sys.version_info[0]}{sys.version_info[1]}"
        build_dir = os.environ.get("ICL_VERIFY_BUILD_DIR") or str(Path("build") / "pip" / f"cmake-{tag}")
        build_dir = Path(build_dir)
        if not build_dir.is_absolute():
            build_dir = ROOT / build_dir
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DICL_BUILD_TESTS=OFF", "-DICL_BUILD_BENCH=OFF", "-DICL_BUILD_PYTHON=ON",
                     "-DICL_PYTHON_REQUIRED=ON", f"-DPython_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "icl_verify_python", "-j", jobs], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        built = build_dir / "python" / f"icl_verify{suffix}"
        if not built.exists():
            found = sorted((build_dir / "python").glob("icl_verify*.so"))
            if len(found) != 1:
                raise RuntimeError(f"icl_verify: the CMake build left no single module in {build_dir / 'python'}")
            built = found[0]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    version=project_version(),
    ext_modules=[CMakeExtension("icl_verify")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
