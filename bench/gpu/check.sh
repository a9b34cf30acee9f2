#!/usr/bin/env bash
# The GPU check of issue 27 (first part): on a machine with an NVIDIA GPU, nvcc and CMake but none of this project's
# Debian packages and no network, build the cuda backend from Debian packages carried along, run the CPU-vs-GPU
# equality test (tests/gpu/cuda_equality.cpp: the kernel's per-prompt losses against the portable path's, the same
# seeds) and time losses() of sja.thm2-sized LSA stacks on the GPU against one CPU core of the same machine.
# Then, where PyTorch finds CUDA, the PyTorch GPU baselines of the same computations (float64 and float32).
# It also times minibatch() of acds form (8) and of sja.fig1's 12-layer bilinear model on the GPU (the training
# step, float64 and float32) against one CPU core.
# Status: the whole script was run on the 2-core development machine without a GPU (25 November 2026): download,
# unpacking, configuring and building icl-cuda-equality and icl-verify against the unpacked packages took 5 min 12 s;
# every GPU step then reported "no GPU" and the script went on to its end. It has not been run on a GPU.
#
#   bench/gpu/check.sh --download   here (Debian 12 with apt): the -dev packages into bench/gpu/debs/ (git-ignored)
#   bench/gpu/check.sh              there: unpack them (dpkg -x) into build-gpu/prefix, configure, build, run
#   bench/gpu/check.sh --paper CLAIM [SECONDS]
#                                   there: build icl-verify and run CLAIM at the paper budget on the GPU
#                                   (--backend cuda) with its training checkpointed in $OUT/checkpoint (or
#                                   bench/gpu/out/checkpoint), stopped with SIGTERM, which saves every run's state, so
#                                   that the whole command, the build included, ends within SECONDS (default 540: the
#                                   device tool's 10-minute command limit). The same command with that folder carried
#                                   back goes on from it; the finished reports go to $OUT/paper, to be committed under
#                                   reports/paper/ (provenance: backend cuda).
# How to run both through the device tool, within a session's 30 minutes: bench/gpu/README.md. Each phase prints
# the seconds the script has run so far ([N s]).
# Env: BUILD_DIR (default build-gpu), CUDA_ARCH (default 90, the H200), OUT (default bench/gpu/out), BACKEND (--paper
# only; default cuda, `portable` for a dry run on a machine without a GPU).
set -euo pipefail
cd "$(dirname "$0")/../.."
DEBS=bench/gpu/debs
# What configuring and building icl-cuda-equality needs (the library's headers and libraries, doctest for the
# test configuration); no Python, no benchmarks.
# libzip4's own dependencies (libbz2, libssl3, zlib) come along in case the GPU machine's image lacks them.
PACKAGES="libeigen3-dev libboost1.74-dev libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev libzip-dev libzip4
          librandom123-dev doctest-dev libbz2-1.0 libssl3 zlib1g"

if [[ "${1:-}" == "--download" ]]; then
  mkdir -p "$DEBS"
  (cd "$DEBS" && apt-get download $PACKAGES)
  du -sh "$DEBS"
  exit 0
fi

BUILD_DIR=${BUILD_DIR:-build-gpu}
ls "$DEBS"/*.deb >/dev/null 2>&1 || { echo "no packages in $DEBS: run bench/gpu/check.sh --download on a Debian machine" >&2; exit 2; }
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "nvcc not found" >&2; exit 2; }
case $BUILD_DIR in /*) prefix=$BUILD_DIR/prefix ;; *) prefix=$PWD/$BUILD_DIR/prefix ;; esac
mkdir -p "$prefix"
for deb in "$DEBS"/*.deb; do dpkg -x "$deb" "$prefix"; done
libs="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/usr" \
      -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DICL_BUILD_PYTHON=OFF -DICL_BUILD_BENCH=OFF >/dev/null
if [[ "${1:-}" == "--paper" ]]; then
  claim=${2:?"--paper CLAIM [SECONDS]"}
  seconds=${3:-540}
  backend=${BACKEND:-cuda}  # BACKEND=portable: a dry run of this path without a GPU
  out=${OUT:-bench/gpu/out}
  mkdir -p "$out/checkpoint" "$out/paper"
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target icl-verify
  echo "[${SECONDS} s] built; date: $(date -u +%Y-%m-%dT%H:%MZ); GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  "$BUILD_DIR"/icl-verify run "$claim" --budget paper --backend "$backend" --estimate || true
  # What is left of SECONDS, less 20 s for the run to save its state after SIGTERM.
  left=$((seconds - SECONDS - 20))
  [[ $left -ge 30 ]] || { echo "--paper: ${SECONDS}s spent before the run, too little left of ${seconds}s" >&2; exit 2; }
  rc=0
  timeout -s TERM "$left" "$BUILD_DIR"/icl-verify run "$claim" --budget paper --backend "$backend" \
      --checkpoint "$out/checkpoint" --checkpoint-every 60 --out "$out/paper" || rc=$?
  case $rc in
    0|1) echo "[${SECONDS} s] $claim: finished at the paper budget (exit $rc); reports in $out/paper" ;;
    4|124) echo "[${SECONDS} s] $claim: stopped after ${left}s of training, state saved in $out/checkpoint; run the same command again" ;;
    *) echo "$claim: failed (exit $rc)"; exit "$rc" ;;
  esac
  exit 0
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" --target icl-cuda-equality icl-verify
echo "[${SECONDS} s] built; date: $(date -u +%Y-%m-%dT%H:%MZ); CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
# (a failure is reported and the check goes on: the timings and comparisons below are wanted either way)
"$BUILD_DIR"/icl-cuda-equality --time || echo "icl-cuda-equality: exit $? (0 passed, 1 a difference, 77 no GPU)"

# A whole claim through the executor on the GPU against the same claim on the portable backend (the same host code
# and per-prompt arithmetic on the CPU): sja.fig2 (bilinear stacks) and xlssc.onelayer (softmax attention on
# unstructured prompts) at --quick, float64 and float32. Expected the same reports, but for prompts whose normals
# took the ziggurat's exp/log paths (docs/engine.md).
echo "[${SECONDS} s] the equality test and its timings are done"
cmp_out=${OUT:-bench/gpu/out}/claims
for claim in sja.fig2 xlssc.onelayer; do
  for prec in float64 float32; do
    for b in cuda portable; do
      "$BUILD_DIR"/icl-verify run "$claim" --quick --seed 1 --backend "$b" --precision "$prec" \
          --out "$cmp_out/$claim/$b-$prec" >/dev/null || echo "$claim on $b, $prec: exit $?"
    done
    echo "$claim --quick, $prec, cuda against portable:"
    python3 reports/compare_reports.py "$cmp_out/$claim/portable-$prec" "$cmp_out/$claim/cuda-$prec" || true
  done
done

echo "[${SECONDS} s] the claims are compared"
# The PyTorch baselines of the same computations on the same GPU, float64 and float32 (bench/torch_sja_thm2.py,
# bench/torch_train_step.py, bench/torch_sja_fig1_step.py with --device cuda; checked here on the CPU only): the
# sja.thm2 estimator at d = 4, n = 200 and at d = 8, n = 1600, one Adam step of acds form (8) (3 layers, d = 5,
# n = 20, batch 4000) and one of sja.fig1's 12-layer bilinear model (d = 4, dbar = 12, n = 200, batch 4000).
if python3 -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  for dt in float64 float32; do
    python3 bench/torch_sja_thm2.py --device cuda --dtype "$dt" --threads 0 --prompts 1048576 --batch 65536
    python3 bench/torch_sja_thm2.py --device cuda --dtype "$dt" --threads 0 --d 8 --n 1600 --prompts 65536 --batch 4096
    python3 bench/torch_train_step.py --device cuda --dtype "$dt" --batch 4000 --d 5 --n 20 --layers 3 --steps 50
    python3 bench/torch_sja_fig1_step.py --device cuda --dtype "$dt" --batch 4000 --d 4 --dbar 12 --n 200 --steps 20
  done
else
  echo "no PyTorch with CUDA here: the PyTorch GPU baselines are skipped"
fi
echo "[${SECONDS} s] done"
