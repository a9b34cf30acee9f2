#!/usr/bin/env bash
# The GPU run (issue 41) as ONE command that ends within SECONDS (default 540), for a lent GPU machine (one H100 or
# H200, 16 cores, nvcc, CMake and PyTorch, none of our Debian packages, no network; 15 minutes of device time a
# session, starts included; at most 10 minutes a command; at most 8 files back from $OUT). How to run it through the
# device tool: bench/gpu/README.md.
#
#   bench/gpu/check.sh --download     here (Debian 12 with apt): the -dev packages into bench/gpu/debs/ (git-ignored)
#   bench/gpu/check.sh --prebuild     here: icl-verify and icl-cuda-equality for the GPU machine (sm_90, no MPI, no
#                                     Python) into bench/gpu/prebuilt/ (git-ignored), so that the device's minutes
#                                     go to the GPU rather than to the compiler
#   bench/gpu/check.sh [SECONDS]      there: the run below; here with BACKEND=portable, the rehearsal
#   bench/gpu/check.sh --unpack TAR   here: what came back (gpu-run.tar.gz) into bench/gpu/out/, where the next run
#                                     resumes the paper run from
#
# The run, each phase under a timeout cut to what is left of SECONDS (a phase that fails or runs out is reported and
# the run goes on), each printing the seconds the script has run ([N s]):
#   1. the binaries: the carried prebuilt ones where they start on this machine, else built from the carried packages
#      (dpkg -x, no root needed) with every core;
#   2. the machine: GPU, driver, CPU, cores, PyTorch;
#   3. icl-cuda-equality: every schedule's losses and minibatches against the portable path on the CPU, bit for bit;
#   4. icl-cuda-equality --time-only: the speed table (losses() and acds form (8) and sja.fig1 training steps, each
#      against one CPU core of this machine, every schedule, float64 and float32);
#   5. bench/gpu/torch_baselines.py: the PyTorch baselines of the same computations on the same GPU;
#   6. sja.fig2 and xlssc.onelayer at --quick, cuda against portable, float64 and float32: the same reports;
#   7. the paper budget (PAPER_CLAIMS, default sja.fig2, then sja.fig1) on the GPU with what is left, checkpointed,
#      stopped with SIGTERM 35 s before the end (the state is saved at the next step), resumed from bench/gpu/out/
#      or, where that is empty, from the committed bench/gpu/paper-state.tar.gz;
#   8. everything packed into $OUT: gpu-run.tar.gz (bench/gpu/out: checkpoints, reports, logs) and summary.txt.
#      The caller tees the whole output into $OUT/check.log.
#
# Env: OUT (default bench/gpu/out/ret), PYTHON (default python3: the one with PyTorch), BACKEND (default cuda; portable: the rehearsal without a GPU, which runs the
# same phases with icl-cuda-equality --rehearse), PAPER_CLAIMS, BUILD_DIR (default build-gpu), CUDA_ARCH (default 90),
# SKIP (phases left out, of: equality timings torch claims), RUNS (phase 7's runs as CLAIM:BUDGET, default each of
# PAPER_CLAIMS at paper; e.g. RUNS=sja.fig1:deciding), RUN_ARGS (added to each run of phase 7: the rehearsal's
# reduced settings).
set -uo pipefail
cd "$(dirname "$0")/../.."
DEBS=bench/gpu/debs
PREBUILT=bench/gpu/prebuilt
WORK=bench/gpu/out            # relative on purpose: a checkpoint's run.json records its --out as spelled
STATE=bench/gpu/paper-state.tar.gz
# What configuring and building needs (the library's headers and libraries, doctest for the test configuration);
# no Python, no benchmarks. libzip4's own dependencies come along in case the GPU machine's image lacks them.
PACKAGES="libeigen3-dev libboost1.74-dev libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev libzip-dev libzip4
          librandom123-dev doctest-dev libbz2-1.0 libssl3 zlib1g"

configure() {  # configure $1 against the unpacked packages in prefix $2 (/: the installed ones)
  local args=()
  command -v ninja >/dev/null 2>&1 && args=(-G Ninja)
  [[ $2 != / ]] && args+=(-DCMAKE_PREFIX_PATH="$2/usr"
                          -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$2/usr/lib/x86_64-linux-gnu:$2/lib/x86_64-linux-gnu")
  cmake -S . -B "$1" "${args[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
        -DICL_BUILD_PYTHON=OFF -DICL_BUILD_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON >/dev/null
}

case "${1:-}" in
  --download)
    mkdir -p "$DEBS"
    (cd "$DEBS" && apt-get download $PACKAGES) || exit 2
    du -sh "$DEBS"
    exit 0 ;;
  --prebuild)
    command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
    configure build-gpu-pre / || exit 2
    cmake --build build-gpu-pre -j"$(nproc)" --target icl-verify icl-cuda-equality || exit 2
    mkdir -p "$PREBUILT"
    for b in icl-verify icl-cuda-equality; do strip -o "$PREBUILT/$b" "build-gpu-pre/$b" || exit 2; done
    git rev-parse HEAD >"$PREBUILT/commit"
    git status --porcelain --untracked-files=no | grep -q . && echo "(uncommitted changes)" >>"$PREBUILT/commit"
    du -sh "$PREBUILT"
    exit 0 ;;
  --unpack)
    tarball=${2:?"--unpack TAR"}
    rm -rf "$WORK" && mkdir -p "$WORK" && tar -xzf "$tarball" -C "$WORK" || exit 2
    ls "$WORK"
    exit 0 ;;
  ""|[0-9]*) ;;
  *) echo "check.sh: unknown option '$1' (--download, --prebuild, --unpack TAR or SECONDS)" >&2; exit 2 ;;
esac

T=${1:-540}
BACKEND=${BACKEND:-cuda}
OUT=${OUT:-$WORK/ret}
PAPER_CLAIMS=${PAPER_CLAIMS:-"sja.fig2 sja.fig1"}
RUNS=${RUNS:-$(for c in $PAPER_CLAIMS; do printf '%s:paper ' "$c"; done)}
SKIP=${SKIP:-}
RUN_ARGS=${RUN_ARGS:-}
skipped() { [[ " $SKIP " == *" $1 "* ]]; }
BUILD_DIR=${BUILD_DIR:-build-gpu}
REHEARSE=()
[[ "$BACKEND" == portable ]] && REHEARSE=(--rehearse)
mkdir -p "$OUT" "$WORK/logs" || exit 2
say() { echo "[${SECONDS} s] $*"; }
# The timeout of a phase: at most $1 seconds, and no more than leaves $2 seconds of T for what comes after it.
cut_to() { local left=$((T - SECONDS - $2)); ((left > $1)) && left=$1; ((left < 5)) && left=5; echo "$left"; }
# Runs a phase under `timeout`, its output into the log and into $WORK/logs/$1.log; says how it ended.
phase() {
  local name=$1 limit=$2 rc
  shift 2
  say "$name: start (timeout ${limit} s)"
  timeout -k 10 "$limit" "$@" 2>&1 | tee "$WORK/logs/$name.log"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) say "$name: done" ;;
    124|137) say "$name: STOPPED at its timeout of ${limit} s" ;;
    *) say "$name: exit $rc" ;;
  esac
  return 0
}

say "1. the binaries"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
prefix=/tmp/icl-gpu-prefix
ICL_LIBS=""  # what our binaries (and they alone: PyTorch keeps the machine's own) load from the carried packages
if ls "$DEBS"/*.deb >/dev/null 2>&1; then
  mkdir -p "$prefix/icl-libs"
  # the libraries now; the -dev packages (boost's headers alone are thousands of files) only for a build
  for deb in "$DEBS"/*.deb; do [[ $deb == *-dev_* ]] || dpkg -x "$deb" "$prefix" || say "dpkg -x $deb failed"; done
  # libfmt and libzip, which the image lacks; the rest of the unpacked libraries only where the machine lacks them
  ln -sf "$prefix"/usr/lib/x86_64-linux-gnu/lib{fmt,zip}.so.* "$prefix/icl-libs/"
  for lib in libbz2.so.1.0 libssl.so.3 libcrypto.so.3 libz.so.1; do
    ldconfig -p 2>/dev/null | grep -q "$lib " || ln -sf "$prefix"/{usr/,}lib/x86_64-linux-gnu/"$lib"* "$prefix/icl-libs/" 2>/dev/null
  done
  ICL_LIBS="$prefix/icl-libs"
else
  prefix=/  # here: the installed packages
fi
RUN=(env "LD_LIBRARY_PATH=$ICL_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
BIN=""
if [[ -x "$PREBUILT/icl-verify" && -x "$PREBUILT/icl-cuda-equality" ]] &&
   "${RUN[@]}" "$PREBUILT/icl-verify" --version >/dev/null 2>&1 &&
   "${RUN[@]}" "$PREBUILT/icl-verify" list >/dev/null 2>&1; then
  BIN=$PREBUILT
  say "prebuilt binaries start here (built from $(head -c 12 "$PREBUILT/commit" 2>/dev/null)): $("${RUN[@]}" "$BIN/icl-verify" --version)"
else
  [[ -d $PREBUILT ]] && { say "the prebuilt binaries do not start here:"; "${RUN[@]}" "$PREBUILT/icl-verify" --version 2>&1 | head -3; }
  say "building in $BUILD_DIR with $(nproc) cores"
  [[ $prefix != / ]] && for deb in "$DEBS"/*-dev_*.deb; do dpkg -x "$deb" "$prefix" || say "dpkg -x $deb failed"; done
  configure "$BUILD_DIR" "$prefix" &&
    timeout "$(cut_to 330 150)" cmake --build "$BUILD_DIR" -j"$(nproc)" --target icl-verify icl-cuda-equality \
      >"$WORK/logs/build.log" 2>&1 && BIN=$BUILD_DIR
  [[ -n $BIN ]] || { tail -30 "$WORK/logs/build.log"; say "the build failed: nothing to run"; }
fi

say "2. the machine"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv 2>/dev/null ||
    echo "nvidia-smi: none"
  echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" 2>/dev/null ||
    echo "torch: none"
  echo "backend: $BACKEND; binaries: ${BIN:-none}; budget: $T s"
} 2>&1 | tee "$WORK/logs/machine.log"

if [[ -n $BIN ]]; then
  say "3. the equality check"
  skipped equality && say "skipped (SKIP)" ||
  phase equality "$(cut_to 170 250)" "${RUN[@]}" "$BIN/icl-cuda-equality" "${REHEARSE[@]}"
  say "4. the speed table"
  skipped timings && say "skipped (SKIP)" ||
  phase timings "$(cut_to 150 170)" "${RUN[@]}" "$BIN/icl-cuda-equality" --time-only "${REHEARSE[@]}"
fi

say "5. the PyTorch baselines on the same GPU"
PY=${PYTHON:-python3}
if skipped torch; then
  say "skipped (SKIP)"
elif $PY -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  phase torch "$(cut_to 120 140)" env PYTHONUNBUFFERED=1 "$PY" bench/gpu/torch_baselines.py --device cuda
elif [[ $BACKEND == portable ]] && $PY -c "import torch" 2>/dev/null; then
  say "no GPU for PyTorch: the rehearsal runs the baselines' plumbing on the CPU (--smoke), timing nothing"
  phase torch "$(cut_to 120 140)" env PYTHONUNBUFFERED=1 "$PY" bench/gpu/torch_baselines.py --device cpu --smoke
else
  say "no PyTorch with CUDA here: skipped"
fi

if [[ -n $BIN ]]; then
  say "6. whole claims at --quick, $BACKEND against portable"
  compare() {
    for claim in sja.fig2 xlssc.onelayer; do
      for prec in float64 float32; do
        for b in "$BACKEND" portable; do
          $ICL "$BIN/icl-verify" run "$claim" --quick --seed 1 --backend "$b" --precision "$prec" \
              --out "$WORK/claims/$claim/$b-$prec" >/dev/null || echo "$claim on $b, $prec: exit $?"
        done
        echo "$claim --quick, $prec, $BACKEND against portable:"
        python3 reports/compare_reports.py "$WORK/claims/$claim/portable-$prec" "$WORK/claims/$claim/$BACKEND-$prec" &&
          echo "  the same reports"
      done
    done
  }
  rm -rf "$WORK/claims"
  skipped claims && say "skipped (SKIP)" ||
  phase claims "$(cut_to 100 100)" bash -c "$(declare -f compare); ICL='${RUN[*]}' BIN=$BIN WORK=$WORK BACKEND=$BACKEND compare"

  say "7. the long runs: $RUNS"
  # The schedule gives the same bits (icl-cuda-equality checks it), so the paper run takes the one that phase 4 timed
  # fastest on sja.fig1's training step in float64 (ICL_CUDA_SCHEDULE; unset: auto, block for gradients).
  fastest=$(awk '/^minibatch\(\) of sja.fig1/ {f = 1} f && /cuda, schedule/ {print $3, $4}' "$WORK/logs/timings.log" \
            2>/dev/null | sort -k2 -g | head -1 | cut -d' ' -f1)
  [[ -n $fastest && $BACKEND == cuda ]] && export ICL_CUDA_SCHEDULE=$fastest && say "schedule: $fastest (fastest in phase 4)"
  if [[ ! -d "$WORK/checkpoint" && -f "$STATE" ]]; then
    tar -xzf "$STATE" -C "$WORK" checkpoint paper 2>/dev/null && say "resuming from the committed $STATE"
  fi
  for entry in $RUNS; do
    claim=${entry%%:*} budget=${entry#*:}
    # the paper runs keep the folders of the committed state; another budget's run has folders of its own
    if [[ $budget == paper ]]; then ck="$WORK/checkpoint/$claim"; else ck="$WORK/checkpoint/$budget-$claim"; fi
    if [[ -f "$WORK/$budget/$claim/$claim.json" ]]; then say "$claim ($budget): finished earlier"; continue; fi
    left=$((T - SECONDS - 35 - 15))  # 35 s for the state to be saved after SIGTERM, 15 s to pack
    ((left >= 30)) || { say "$claim: ${left} s left, too little to start"; break; }
    mode=(--checkpoint "$ck")  # the same command with the same folder goes on from its saved state
    [[ -f "$ck/run.json" ]] && say "$claim: goes on from $ck ($(find "$ck" -name '*.state' | wc -l) runs part-way," \
                                   "$(find "$ck" -name '*.done' | wc -l) finished)"
    mkdir -p "$WORK/$budget"
    say "$claim ($budget): ${mode[0]} $ck, stopped with SIGTERM after $left s"
    rc=0
    # shellcheck disable=SC2086  # RUN_ARGS is a list of words
    timeout -s TERM -k 35 "$left" "${RUN[@]}" "$BIN/icl-verify" run "$claim" --budget "$budget" --backend "$BACKEND" "${mode[@]}" \
        --checkpoint-every 60 $RUN_ARGS --out "$WORK/$budget/$claim" 2>&1 | tee -a "$WORK/logs/$budget-$claim.log"
    rc=${PIPESTATUS[0]}
    case $rc in
      0|1) say "$claim: finished at the $budget budget (exit $rc); reports in $WORK/$budget/$claim" ;;
      4|124) say "$claim: stopped, its state saved in $ck; the same command goes on from it"; break ;;
      *) say "$claim: failed (exit $rc)"; break ;;
    esac
  done
fi

say "8. packing into $OUT"
{
  echo "# bench/gpu/check.sh, backend $BACKEND, $(date -u +%Y-%m-%dT%H:%MZ)"
  cat "$WORK/logs/machine.log" 2>/dev/null
  grep -hE "^(PASSED|FAILED|FAIL|GPU:|REHEARSAL)" "$WORK/logs/equality.log" 2>/dev/null
  grep -hE "cpu 1 thread|cuda, schedule|^minibatch|^losses" "$WORK/logs/timings.log" 2>/dev/null
  grep -hE "^(per_step_ms|prompts_per_s|torch |# )" "$WORK/logs/torch.log" 2>/dev/null
  grep -hE "against portable|the same reports|differ|exit" "$WORK/logs/claims.log" 2>/dev/null
} >"$OUT/summary.txt"
tar -czf "$OUT/gpu-run.tar.gz" --exclude=./ret -C "$WORK" . && say "gpu-run.tar.gz: $(du -h "$OUT/gpu-run.tar.gz" | cut -f1)"
say "end"
