# Debian 12 packages the project needs; sourced by ./verify and ./test.
# libzip-dev reads .npz weight files; pybind11-dev and python3-dev build the optional Python module, whose tests
# (and the benchmark) use python3-numpy; python3-venv, python3-setuptools and python3-wheel are what `pip install .`
# needs offline (ctest python_install: a fresh venv with --system-site-packages, --no-build-isolation).
# python3-matplotlib draws the PDF figures (reports/plot_figures.py).
# libopenmpi-dev and openmpi-bin: the optional MPI build of icl-verify
# (mpirun -n K; ./test runs a 2-rank check where they are installed). ninja-build: the generator (faster
# than make for the many small steps of a rebuild).
ICL_PACKAGES=(g++ cmake make ninja-build libeigen3-dev libboost-dev libfmt-dev doctest-dev libbenchmark-dev
              librandom123-dev libcli11-dev nlohmann-json3-dev libzip-dev pybind11-dev python3-dev python3-numpy
              python3-venv python3-setuptools python3-wheel python3-matplotlib libopenmpi-dev openmpi-bin)

ensure_packages() {
  local missing=()
  for p in "${ICL_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "missing Debian packages; run as root:" >&2
    echo "  apt-get install -y ${missing[*]}" >&2
    exit 2
  fi
}

# The generator option for configuring build folder $1: Ninja where installed, unless the folder was already
# configured with another generator (CMake cannot switch a folder's generator).
generator_args() {
  local cache="$1/CMakeCache.txt"
  if ! command -v ninja >/dev/null 2>&1; then return 0; fi
  if [ -f "$cache" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then return 0; fi
  echo "-G Ninja"
}
