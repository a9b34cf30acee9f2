"""Builds the extension module `icl_verify` for `pip install .` (pyproject.toml) with the project's CMake build.

What it builds, and where: the CMake targets icl_verify_python (the module: the library lib/icl, the claims and
python/icl_verify_module.cpp) and icl-verify (the command line, build/icl-verify, a link step more), in the
project's own build folder build/, the one ./verify and ./test use. So an install after ./verify or ./test compiles
nothing again (only what changed), and ./verify, ./test and the README's build/icl-verify lines work after an
install. A cold build (no build/ yet) compiles the library and the claims once: minutes on 2 cores, fewer with ccache
(docs/speed.md). The module is then copied to where setuptools puts the extension; the version is the CMake project's.

Progress: every step and every compiled file is printed as a line ("icl-verify build: [57/162] ..."), which pip
shows with -v (and keeps in its log); at a terminal a progress line is also drawn there directly (on /dev/tty), so
that a plain `pip install .` shows how far the build is instead of pip's silent "still running...".

Which build folder:
  - build/ as ./verify and ./test configure it, where it was configured for this interpreter's kind of module (the
    same EXT_SUFFIX) or not configured yet (then it is configured here as ./verify would, with the tests left out
    only where doctest is missing);
  - else build/pip/cmake-<python tag> (an interpreter of another Python version), configured for this interpreter.
Environment:
  ICL_VERIFY_BUILD_DIR        another CMake build folder (a relative path is taken from this folder); configured for
                              this interpreter where it is new.
  CMAKE_BUILD_PARALLEL_LEVEL  parallel compile jobs (default: the number of cores).
  ICL_VERIFY_PREBUILT_MODULE  a module the project's CMake build already made for this interpreter (the file
                              build/python/icl_verify<EXT_SUFFIX>): installed as it is, nothing compiled.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
TARGETS = ["icl_verify_python", "icl-verify"]


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(\s*icl_verify\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text)
    if not m:
        raise RuntimeError("CMakeLists.txt: no 'project(icl_verify VERSION x.y.z)'")
    return m.group(1)


class Progress:
    """Lines on stdout (pip -v, pip's log) and, at a terminal, one progress line redrawn on /dev/tty."""

    def __init__(self):
        self.start = time.monotonic()
        self.tty = None
        try:
            self.tty = open("/dev/tty", "w")
        except OSError:
            self.tty = None
        self.drawn = 0

    def elapsed(self):
        s = int(time.monotonic() - self.start)
        return "%d:%02d" % (s // 60, s % 60)

    def line(self, text):
        print("icl-verify build: %s" % text, flush=True)
        self.draw(text)

    def draw(self, text):
        if not self.tty:
            return
        width = shutil.get_terminal_size((80, 24)).columns
        shown = ("icl-verify build (%s): %s" % (self.elapsed(), text))[:max(10, width - 1)]
        try:
            self.tty.write("\r" + shown + " " * max(0, self.drawn - len(shown)))
            self.tty.flush()
        except OSError:
            self.tty = None
        self.drawn = len(shown)

    def done(self, text):
        self.line(text)
        if self.tty:
            try:
                self.tty.write("\n")
                self.tty.close()
            except OSError:
                pass
            self.tty = None


def run_logged(cmd, progress, what):
    """Runs cmd, passing its output on line by line; ninja's "[k/n] ..." lines become the progress line."""
    progress.line("%s: %s" % (what, " ".join(cmd)))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    tail = []
    for raw in p.stdout:
        line = raw.rstrip("\n")
        tail = (tail + [line])[-40:]
        m = re.match(r"^\[(\d+)/(\d+)\]\s*(.*)$", line)
        if m:
            done, total, rest = int(m.group(1)), int(m.group(2)), m.group(3)
            name = rest.split(" ")[-1].split("/")[-1] if rest else ""
            progress.line("[%d/%d] %d%% %s" % (done, total, 100 * done // max(total, 1), name))
        else:
            print(line, flush=True)
    status = p.wait()
    if status != 0:
        progress.done("%s failed (exit status %d)" % (what, status))
        raise RuntimeError("icl_verify: %s failed (exit status %d); its last lines:\n%s" % (what, status, "\n".join(tail)))


def cache_value(cache, name):
    m = re.search(r"^%s:[A-Z]+=(.*)$" % re.escape(name), cache, re.M)
    return m.group(1) if m else None


def ext_suffix_of(python):
    try:
        out = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX') or '.so')"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def same_folder(a, b):
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def choose_build_dir(suffix):
    """(build folder, configure options) as the module docstring says."""
    given = os.environ.get("ICL_VERIFY_BUILD_DIR")
    if given:
        d = Path(given)
        return (d if d.is_absolute() else ROOT / d), [f"-DPython_EXECUTABLE={sys.executable}"]
    main = ROOT / "build"
    cache_file = main / "CMakeCache.txt"
    if cache_file.exists():
        cache = cache_file.read_text(encoding="utf-8", errors="replace")
        home = cache_value(cache, "CMAKE_HOME_DIRECTORY")
        python = cache_value(cache, "Python_EXECUTABLE") or cache_value(cache, "_Python_EXECUTABLE")
        if home and same_folder(home, ROOT) and python and ext_suffix_of(python) == suffix:
            return main, []  # ./verify's or ./test's build folder, for this kind of module: reused as it is
    elif ext_suffix_of("/usr/bin/python3") == suffix or not Path("/usr/bin/python3").exists():
        # Not configured yet: configured here as ./verify and ./test configure it (their Python: /usr/bin/python3,
        # CMakeLists.txt), so that they go on from it.
        options = []
        if not Path("/usr/bin/python3").exists():
            options.append(f"-DPython_EXECUTABLE={getattr(sys, '_base_executable', sys.executable)}")
        if not any(Path(p).exists() for p in ("/usr/include/doctest/doctest.h", "/usr/local/include/doctest/doctest.h")):
            options += ["-DICL_BUILD_TESTS=OFF", "-DICL_BUILD_BENCH=OFF"]  # ./test turns them on again
        return main, options
    tag = sysconfig.get_config_var("SOABI") or f"py{sys.version_info[0]}{sys.version_info[1]}"
    return ROOT / "build" / "pip" / f"cmake-{tag}", [f"-DPython_EXECUTABLE={sys.executable}", "-DICL_BUILD_TESTS=OFF",
                                                     "-DICL_BUILD_BENCH=OFF"]


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name))
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        prebuilt = os.environ.get("ICL_VERIFY_PREBUILT_MODULE")
        if prebuilt:
            if not prebuilt.endswith(suffix) or not Path(prebuilt).is_file():
                raise RuntimeError(f"icl_verify: ICL_VERIFY_PREBUILT_MODULE={prebuilt} is not a module file for "
                                   f"this interpreter (*{suffix})")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(prebuilt, target)
            return
        if shutil.which("cmake") is None:
            raise RuntimeError("icl_verify: cmake not found (Debian: apt-get install cmake)")
        progress = Progress()
        build_dir, options = choose_build_dir(suffix)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        configured = (build_dir / "CMakeCache.txt").exists()
        progress.line("the module and the command line in %s (%s; %s jobs)" % (
            build_dir, "configured before: only what changed is compiled" if configured else "a new build folder",
            jobs))
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DICL_BUILD_PYTHON=ON", "-DICL_PYTHON_REQUIRED=ON"] + options
        if shutil.which("ninja") and not configured:
            configure += ["-G", "Ninja"]
        run_logged(configure, progress, "configure")
        run_logged(["cmake", "--build", str(build_dir), "--target"] + TARGETS + ["-j", jobs], progress, "build")
        built = build_dir / "python" / f"icl_verify{suffix}"
        if not built.exists():
            found = sorted((build_dir / "python").glob("icl_verify*.so"))
            if len(found) != 1:
                raise RuntimeError(f"icl_verify: the CMake build left no single module in {build_dir / 'python'}")
            built = found[0]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        progress.done("done in %s: the module icl_verify, and the command line %s" % (
            progress.elapsed(), build_dir / "icl-verify"))


setup(
    version=project_version(),
    ext_modules=[CMakeExtension("icl_verify")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
