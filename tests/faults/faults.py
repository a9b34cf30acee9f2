#!/usr/bin/env python3
"""Fault injection (ctest `faults`): what a new user's mistakes and a hostile environment get from icl-verify.

Each case injects one kind of fault into the command line or the Python module, the way a user would meet it
(damaged checkpoint files, special files as weights, bad Python arguments, two runs on one folder, a full disk,
loosely written numbers, a resume spelled differently, stopping a run under mpirun), and checks the contract of
docs/reliability.md: bad input gets ONE line on stderr and exit status 2 with nothing written, a report or checkpoint
file is used or written whole or not at all, and documented exit statuses hold. Every command runs under a time limit
and an address-space limit, so that a fault that makes the program read forever or hang fails the case instead of
the machine.

  faults.py test  --binary build/icl-verify [--python-path build/python] [--cases a,b] [--check-doc docs/reliability.md]
  faults.py table --binary build/icl-verify [--python-path build/python] --write docs/reliability.md

`test` runs the cases and exits 1 if any fails; with --check-doc it also fails when the table in that file (between
<!-- faults:begin --> and <!-- faults:end -->) is not the one this run gives. `table --write` rewrites that table from
a run; it refuses to write while a case fails.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
BEGIN, END = "<!-- faults:begin -->", "<!-- faults:end -->"

ARGS = None  # the parsed command line


class Failed(Exception):
    pass


def limits(memory_gib=3, file_blocks=None):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (memory_gib << 30, memory_gib << 30))
        if file_blocks is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_blocks * 1024, file_blocks * 1024))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails (EFBIG) instead of killing
        os.setpgrp()
    return apply


class Result:
    def __init__(self, status, out, err, seconds):
        self.status, self.out, self.err, self.seconds = status, out, err, seconds

    def lines(self):
        return [l for l in self.err.splitlines() if l.strip()]

    def describe(self):
        return f"exit {self.status} after {self.seconds:.1f} s; stderr: {self.err.strip()[:600]!r}"


def run(argv, cwd=None, timeout=60, env=None, **kw):
    """Runs argv with limits; a run past `timeout` is killed (status 'timeout')."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limits(**kw))
    try:
        out, err = p.communicate(timeout=timeout)
        status = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        status = "timeout"
    return Result(status, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - t0)


def cli(*args, **kw):
    return run([ARGS.binary, *args], **kw)


def expect_refused(r, says, what):
    """Exit 2, exactly one line on stderr holding `says`."""
    if r.status != 2 or len(r.lines()) != 1 or says not in r.err:
        raise Failed(f"{what}: expected exit 2 and one line with {says!r}; got {r.describe()}")
    return r.lines()[0]


def nothing_in(folder, what):
    if os.path.exists(folder) and os.listdir(folder):
        raise Failed(f"{what}: wrote {sorted(os.listdir(folder))} in {folder}")


def tree(folder):
    """{relative path: bytes} of every file under folder."""
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder)] = fh.read()
    return out


def python(code, timeout=120):
    """Runs `code` in a fresh interpreter with the module on the path; returns the Result."""
    env = dict(os.environ, PYTHONPATH=ARGS.python_path)
    return run([ARGS.python, "-c", code], env=env, timeout=timeout, memory_gib=6)


def normalise(line, tmp):
    line = line.replace(tmp, "…")
    line = re.sub(r"\(process \d+\)", "(process N)", line)
    line = re.sub(r"\b[0-9a-f]{8,16}\b", "…", line)
    return line


# ---------------------------------------------------------------------------------------------------------- cases
# Each case: (id, fault, tried, function(tmp) -> (what it gets, [example line])). A case raises Failed when the
# contract does not hold. `tried` counts what is injected.

# acds.exp43's form (8) trains on the cpu executor's label-row kernels (lib/icl/execute/label_row.hpp), about 50 times
# faster than on the layers: 20000 steps (50000 for the lock) keep a training run long enough to be interrupted.
TRAIN = ["run", "acds.exp43", "--quick", "--set", "steps=20000", "--threads", "1"]


def interrupted_checkpoint(tmp):
    """A checkpoint folder as a SIGTERM leaves it mid-training (exit 4): run.json and at least one .state file."""
    ck, out = os.path.join(tmp, "ck"), os.path.join(tmp, "out")
    p = subprocess.Popen([ARGS.binary, *TRAIN, "--out", out, "--checkpoint", ck, "--checkpoint-every", "0.2"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limits())
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if os.path.isdir(ck) and any(f.endswith(".state") for f in os.listdir(ck)):
            break
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    if p.returncode != 4:
        raise Failed(f"the run to interrupt exited {p.returncode}, expected 4: {err.decode()[:300]!r}")
    states = sorted(f for f in os.listdir(ck) if f.endswith(".state"))
    if not states:
        raise Failed("no .state file was saved")
    return ck, states[0]


# The fields of a version-2 checkpoint state file (learn/checkpoint.hpp): offset, length, name.
STATE_FIELDS = [(0, 7, "magic"), (7, 1, "format version"), (8, 8, "length"), (16, 8, "key"), (24, 8, "step"),
                (32, 8, "theta's length"), (40, 8, "theta[0]")]


def case_checkpoint(tmp):
    ck, state = interrupted_checkpoint(tmp)
    good = open(os.path.join(ck, state), "rb").read()
    n = len(good)
    damages = []
    for at, length, name in STATE_FIELDS + [(n // 2, 8, "the curve"), (n - 12, 8, "the last curve values"),
                                              (n - 4, 4, "the checksum")]:
        damages.append((f"a bit flipped in {name}", good[:at] + bytes([good[at] ^ 0x04]) + good[at + 1:]))
        damages.append((f"truncated inside {name}", good[:at + length // 2]))
    damages.append(("extended by 1 byte", good + b"\0"))
    damages.append(("extended by 8 bytes", good + good[-8:]))
    damages.append(("empty", b""))
    v1 = bytearray(good)
    v1[7] = ord("1")
    damages.append(("format version 1 (no checksum)", bytes(v1)))
    example = ""
    for what, damaged in damages:
        copy = os.path.join(tmp, "ck-damaged")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(ck, copy)
        with open(os.path.join(copy, state), "wb") as f:
            f.write(damaged)
        before = tree(copy)
        out = os.path.join(tmp, "out")  # the interrupted run's
        r = cli(*TRAIN, "--out", out, "--resume", copy, timeout=120)
        line = expect_refused(r, state, f"checkpoint {what}")
        if "checkpoint file" not in line:
            raise Failed(f"checkpoint {what}: the line does not say it is the checkpoint file: {line!r}")
        nothing_in(out, f"checkpoint {what}")
        if tree(copy) != before:
            raise Failed(f"checkpoint {what}: the refused run changed the checkpoint folder")
        if "theta[0]" in what and "flipped" in what:
            example = normalise(line, tmp)
    # The undamaged folder resumes.
    r = cli(*TRAIN, "--out", os.path.join(tmp, "out"), "--resume", ck, timeout=300)
    if r.status != 0:
        raise Failed(f"the undamaged checkpoint did not resume: {r.describe()}")
    return (f"{len(damages)} damaged .state files, each resumed: exit 2, one line naming the file, nothing written, "
            f"the folder untouched; the undamaged one resumes (exit 0)", example, len(damages))


def special_files(tmp):
    d = os.path.join(tmp, "special")
    os.makedirs(d)
    made = []
    for ext in (".npy", ".npz", ".safetensors"):
        zero = os.path.join(d, "zero" + ext)
        os.symlink("/dev/zero", zero)
        fifo = os.path.join(d, "fifo" + ext)
        os.mkfifo(fifo)
        folder = os.path.join(d, "folder" + ext)
        os.mkdir(folder)
        made += [(zero, "a character device"), (fifo, "a FIFO"), (folder, "a folder")]
    return made


def case_weights(tmp):
    example = None
    tried = 0
    for path, kind in special_files(tmp):
        out = os.path.join(tmp, "eval-out")
        r = cli("eval", "--weights", path, "--set", "n=10", "--quick", "--out", out, timeout=20)
        line = expect_refused(r, f"not a regular file ({kind})", f"eval --weights {os.path.basename(path)}")
        if path not in line:
            raise Failed(f"the line does not name {path}: {line!r}")
        nothing_in(out, "eval --weights " + path)
        example = example or normalise(line, tmp)
        tried += 1
    # --sigma, and a weight file over the byte limit (sparse: nothing on disk).
    good = os.path.join(tmp, "w.npy")
    write_npy(good, (1, 1, 2, 2, 2), [0.0] * 8)
    fifo = os.path.join(tmp, "special", "fifo.npy")
    r = cli("eval", "--weights", good, "--sigma", fifo, "--quick", "--out", os.path.join(tmp, "o2"), timeout=20)
    expect_refused(r, "not a regular file (a FIFO)", "eval --sigma FIFO")
    big = os.path.join(tmp, "big.npy")
    with open(big, "wb") as f:
        f.truncate((1 << 30) + 1)
    r = cli("eval", "--weights", big, "--quick", "--out", os.path.join(tmp, "o3"), timeout=20)
    expect_refused(r, "more than the 1073741824 bytes a weight file may have", "eval on a 1 GiB + 1 file")
    tried += 2
    return (f"{tried} special or oversized files as `eval --weights` or `--sigma` (a link to /dev/zero, a FIFO, a folder, "
            "as .npy, .npz and .safetensors; 1 GiB + 1 byte): exit 2 at once, one line naming the file, nothing written",
            example, tried)


def write_npy(path, shape, values):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(f"<{len(values)}d", *values))


def safetensors(header, data):
    return struct.pack("<Q", len(header)) + header + data


def case_nul_safetensors(tmp):
    h = b'{"P1":{"dtype":"F64","shape":[3,3],"data_offsets":[0,72]},"Q1":{"dtype":"F64","shape":[3,3],"data_offsets":[72,144]}}'
    data = struct.pack("<18d", *([0.0] * 8 + [1.0] + [0.0] * 9))
    path = os.path.join(tmp, "nul.safetensors")
    with open(path, "wb") as f:
        f.write(safetensors(h + b"\0" * 8, data))
    out = os.path.join(tmp, "out")
    line = expect_refused(cli("eval", "--weights", path, "--quick", "--out", out, timeout=60), "a NUL byte",
                          "a NUL-padded header")
    nothing_in(out, "a NUL-padded header")
    spaced = os.path.join(tmp, "spaced.safetensors")
    with open(spaced, "wb") as f:
        f.write(safetensors(h + b" " * 8, data))
    r = cli("eval", "--weights", spaced, "--quick", "--samples", "4096", "--out", out, timeout=120)
    if r.status != 0:
        raise Failed(f"the space-padded header was not read: {r.describe()}")
    return ("a .safetensors header padded with NUL bytes: exit 2, one line; padded with spaces (the format's padding) "
            "it is read", normalise(line, tmp), 2)


PY_PRELUDE = """
import sys, numpy as np, icl_verify as iv
def one(call):
    try:
        call()
    except ValueError as e:
        m = str(e)
        assert m and "\\n" not in m, repr(m)
        return m
    except BaseException as e:
        return "NOT A ValueError: %s: %s" % (type(e).__name__, str(e).replace("\\n", " | ")[:200])
    return "ACCEPTED"
P, Q = np.zeros((3, 3)), np.zeros((3, 3)); P[2, 2] = 1; Q[:2, :2] = -0.5 * np.eye(2)
W = {"P1": P, "Q1": Q}
nan, inf = float("nan"), float("inf")
"""

PY_CASES = [
    # (call, what the message must hold)
    ("iv.exact_loss(P, Q, 10, noise=nan)", "noise must be a finite number"),
    ("iv.exact_loss(P, Q, 10, noise=inf)", "noise must be a finite number"),
    ("iv.mc_loss(W, 10, noise=nan, samples=256)", "noise must be a finite number"),
    ("iv.mc_loss(W, 10, noise=inf, samples=256)", "noise must be a finite number"),
    ("iv.optimal_gamma(np.eye(2), 10, noise=nan)", "noise must be a finite number"),
    ("iv.optimal_gamma(np.eye(2), 10, noise=-1)", "noise must be in [0, 1e+06]"),
    ("iv.exact_loss(np.full((3, 3), nan), Q, 10)", "P has a non-finite entry (nan)"),
    ("iv.exact_loss(P, Q, 10, sigma=np.array([[1.0, 0], [0, inf]]))", "sigma has a non-finite entry (inf)"),
    ("iv.exact_loss(np.eye(14), np.eye(14), 10)", "d = 13 is beyond the exact integration"),
    ("iv.exact_loss(np.eye(200), np.eye(200), 10)", "P: 200 x 200 is larger than 65 x 65"),
    ("iv.exact_loss(P, Q, 10**7)", "parameter n must be in [1, 100000]"),
    ("iv.exact_loss(P, Q, '10')", "n: expected a number, got str"),
    ("iv.mc_loss(W, 10, samples=0)", "--samples '0': expected a whole number in [1, 1000000000]"),
    ("iv.mc_loss(W, 10, samples=256, seed=-1)", "--seed '-1': expected a whole number in [0, 2^64)"),
    ("iv.run('sja.thm2', quick=True, seed=-1)", "--seed '-1': expected a whole number in [0, 2^64)"),
    ("iv.run('sja.thm2', quick=True, threads=1.5)", "--threads '1.5': expected a whole number"),
    ("iv.run('sja.thm2', quick=True, d=nan)", "--set d: 'nan' is not a number"),
    ("iv.sample_prompt(200, 10)", "parameter d must be in [1, 64]"),
    ("iv.test_covariance(2, 7)", "parameter kind must be in [0, 3]"),
    ("iv.lsa_layer(np.zeros((3, 4)), np.eye(2), np.eye(2))", "P and Q must be 3 x 3"),
    ("iv.eval_weights(np.zeros((1, 1, 2, 2, 2), dtype=np.int32), samples=256)", "dtype int32 is not a floating-point type"),
    ("iv.eval_weights({'P1': P.astype(np.int64), 'Q1': Q}, samples=256)", "dtype int64 is not a floating-point type"),
    ("iv.eval_weights(W, samples=256, tolerance=nan)", "--tolerance must be"),
    ("iv.check('all', statement='s', stated=lambda **p: 1.0, model=lambda **p: W, grid={'d': 2, 'n': 10}, samples=256)",
     "claim id 'all' is a word of the command line"),
    ("iv.check('run', statement='s', stated=lambda **p: 1.0, model=lambda **p: W, grid={'d': 2, 'n': 10}, samples=256)",
     "claim id 'run' is a word of the command line"),
    ("iv.check('sja.thm2', statement='s', stated=lambda **p: 1.0, model=lambda **p: W, grid={'d': 2, 'n': 10}, samples=256)",
     "is taken by a claim of the library"),
]


def case_python(tmp):
    if not ARGS.python_path or not os.path.isdir(ARGS.python_path):
        return None  # built without the module
    bad, first = [], None
    for call, says in PY_CASES:  # each in a fresh interpreter, under its own time limit
        r = python(PY_PRELUDE + f"print(one(lambda: {call}))\n", timeout=60)
        got = r.out.strip().splitlines()[-1] if r.status == 0 and r.out.strip() else f"({r.describe()})"
        if says not in got:
            bad.append(f"{call} -> {got[:300]!r} (expected {says!r})")
        first = first or got
    if bad:
        raise Failed(f"{len(bad)} of {len(PY_CASES)}: " + "; ".join(bad))
    return (f"{len(PY_CASES)} bad arguments (nan and inf noise, NaN matrices, d beyond the exact integration or memory, "
            "wrong types, the command line's whole-number rules, int32/int64 weights, 'all', a subcommand or a catalogue "
            "ID as one's own claim): each one ValueError with the command line's one-line message",
            first, len(PY_CASES))


def case_lock(tmp):
    out = os.path.join(tmp, "out")
    args = ["run", "acds.exp43", "--quick", "--set", "steps=50000", "--threads", "1", "--out", out]
    a = subprocess.Popen([ARGS.binary, *args, "--seed", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=limits())
    deadline = time.monotonic() + 5  # until the first run holds the folder (its lock file is there)
    while time.monotonic() < deadline and not os.path.exists(os.path.join(out, ".icl-verify.lock")) and a.poll() is None:
        time.sleep(0.05)
    time.sleep(0.2)
    if a.poll() is not None:
        raise Failed("the first run ended before the second started (make it longer)")
    b = cli(*args, "--seed", "2", timeout=120)
    a_err = a.communicate(timeout=600)[1].decode()
    line = expect_refused(b, "is in use by another icl-verify run", "a second run on a held --out")
    if a.returncode != 0:
        raise Failed(f"the first run exited {a.returncode}: {a_err[:300]!r}")
    seeds = {json.load(open(os.path.join(out, f)))["seed"] for f in os.listdir(out) if f.endswith(".json")}
    if seeds != {1}:
        raise Failed(f"the folder holds reports of seeds {seeds}")
    tried = 1
    # Released on every way out: a normal end (above), SIGTERM with a checkpoint (exit 4), SIGKILL, bad input.
    for how in ("SIGTERM", "SIGKILL"):
        ck = os.path.join(tmp, "ck-" + how)
        p = subprocess.Popen([ARGS.binary, *args, "--checkpoint", ck, "--checkpoint-every", "0.2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limits())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (os.path.isdir(ck) and any(f.endswith(".state") for f in os.listdir(ck))):
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGKILL)
        p.communicate(timeout=120)
        if how == "SIGTERM" and p.returncode != 4:
            raise Failed(f"SIGTERM: exit {p.returncode}, expected 4")
        r = cli("run", "sja.lemma3", "--quick", "--threads", "1", "--out", out, timeout=300)
        if r.status != 0:
            raise Failed(f"after {how} the folder stayed held: {r.describe()}")
        tried += 1
    return ("two runs on one --out at once: the second gets exit 2 and one line naming the holder, the first's "
            "reports alone are there; the folder is free again after a normal end, SIGTERM (exit 4) and SIGKILL",
            normalise(line, tmp), tried)


def report_files(folder):
    return sorted(f for f in os.listdir(folder)) if os.path.isdir(folder) else []


def case_full_disk(tmp):
    # Two claims in one run; a file size limit (RLIMIT_FSIZE, as a full disk: the write fails) between the first
    # claim's largest file and the second's JSON, so that the run fails part-way through writing.
    sizes = {}
    probe = os.path.join(tmp, "probe")
    r = cli("run", "sja.thm2", "sja.lemma3", "--quick", "--threads", "1", "--out", probe, timeout=300)
    if r.status != 0:
        raise Failed(f"the probe run failed: {r.describe()}")
    for f in os.listdir(probe):
        sizes[f] = os.path.getsize(os.path.join(probe, f))
    first = max(v for k, v in sizes.items() if k.startswith("sja.thm2."))
    second = sizes["sja.lemma3.json"]
    if not first + 2048 < second:
        raise Failed(f"no limit separates the files: sja.thm2 up to {first} bytes, sja.lemma3.json {second}")
    blocks = (first + second) // 2 // 1024
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    r = cli("run", "sja.thm2", "sja.lemma3", "--quick", "--threads", "1", "--out", out, timeout=300,
            file_blocks=blocks)
    if r.status != 3 or len(r.lines()) != 1 or "cannot write" not in r.err:
        raise Failed(f"a run that cannot write its files: expected exit 3 and one line; got {r.describe()}")
    left = report_files(out)
    if left:
        raise Failed(f"a failed write left {left} in the folder")
    line = normalise(r.lines()[0], tmp)
    # eval's three files, the same way.
    w = os.path.join(tmp, "w.npy")
    write_npy(w, (1, 1, 2, 2, 2), [1.0, 0, 0, 1.0, -0.5, 0, 0, -0.5])
    eout = os.path.join(tmp, "eval")
    r = cli("eval", "--weights", w, "--quick", "--samples", "4096", "--out", eout, timeout=120, file_blocks=1)
    if r.status != 3 or len(r.lines()) != 1 or report_files(eout):
        raise Failed(f"eval with no room: {r.describe()}; left {report_files(eout)}")
    return ("a file size limit (as a full disk) between the sizes of two claims' reports, and 1 KiB for `eval`: "
            "exit 3, one line naming the file, and none of the run's files in the folder", line, 2)


def case_numbers(tmp):
    example = None
    bad = ["n=0x19", "n= 25", "n=25 ", "n=+25", "n=25,0x1A", "n=inf", "n=1e999"]
    for s in bad:
        out = os.path.join(tmp, "out")
        r = cli("run", "sja.thm2", "--quick", "--threads", "1", "--set", s, "--out", out, timeout=120)
        line = expect_refused(r, "is not a number", f"--set {s!r}")
        nothing_in(out, f"--set {s!r}")
        example = example or normalise(line, tmp)
    r = cli("run", "sja.thm2", "--quick", "--threads", "1", "--set", "n=25,2.5e1", "--out", os.path.join(tmp, "o"),
            timeout=120)
    expect_refused(r, "value 25 given twice", "--set n=25,2.5e1")
    return (f"{len(bad)} loosely written numbers in --set (hex, spaces, a plus sign, inf, overflow): exit 2, one line, "
            "nothing written", example, len(bad))


def case_same_path(tmp):
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    r = cli("run", "sja.thm2", "--quick", "--threads", "1", "--out", "rel/out", "--checkpoint", "ck", cwd=work,
            timeout=300)
    if r.status != 0:
        raise Failed(f"the first run failed: {r.describe()}")
    spellings = [("--out", os.path.join(work, "rel", "out"), "--resume", "ck"),
                 ("--out", "./rel/../rel/out", "--resume", os.path.join(work, "ck")),
                 ("--out", "rel/out", "--checkpoint", "ck", "--resume", "./ck")]
    for args in spellings:
        r = cli("run", "sja.thm2", "--quick", "--threads", "1", *args, cwd=work, timeout=300)
        if r.status != 0:
            raise Failed(f"resume with {' '.join(args)}: {r.describe()}")
    r = cli("run", "sja.thm2", "--quick", "--threads", "1", "--out", "other", "--resume", "ck", cwd=work, timeout=60)
    line = expect_refused(r, "holds the state of another run", "resume into another folder")
    # A folder saved with a relative --out goes on after the checkout moves (another clone, another machine: the GPU
    # run's committed state, bench/gpu/): run.json keeps --out as given.
    moved = os.path.join(tmp, "moved")
    os.rename(work, moved)
    r = cli("run", "sja.thm2", "--quick", "--threads", "1", "--out", "rel/out", "--checkpoint", "ck", cwd=moved,
            timeout=300)
    if r.status != 0:
        raise Failed(f"resume after the folder moved: {r.describe()}")
    return (f"{len(spellings)} resumes naming the same folders another way (absolute, with ./ and ..) and one after "
            "the checkout moved: accepted; another --out is still refused", normalise(line, tmp),
            len(spellings) + 2)


def case_mpirun(tmp):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        return None
    extra = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    probe = run([mpirun, *extra, "-n", "2", "true"], env=env, timeout=120)
    if probe.status != 0:
        return None

    def stopped(sig, ck, out):
        """mpirun -n 2 with a checkpoint, sent `sig` once a state is saved: (exit status, stderr)."""
        p = subprocess.Popen([mpirun, *extra, "-n", "2", ARGS.binary, *TRAIN, "--out", out, "--checkpoint", ck,
                              "--checkpoint-every", "0.2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=limits(memory_gib=16))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (os.path.isdir(ck) and any(f.endswith(".state") for f in os.listdir(ck))):
            time.sleep(0.05)
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            raise Failed(f"mpirun did not stop within 120 s of signal {sig}")
        if os.path.isdir(out) and report_files(out):
            raise Failed(f"the stopped run wrote {report_files(out)}")
        return p.returncode, err.decode(errors="replace")

    def resumed(ck, out):
        r = run([mpirun, *extra, "-n", "2", ARGS.binary, *TRAIN, "--out", out, "--resume", ck], env=env, timeout=600,
                memory_gib=16)
        if r.status != 0:
            raise Failed(f"the resumed 2-rank run failed: {r.describe()}")

    status, err = stopped(signal.SIGUSR1, os.path.join(tmp, "ck1"), os.path.join(tmp, "out1"))
    if status != 4:
        raise Failed(f"mpirun -n 2 stopped by SIGUSR1 exited {status}, expected 4: {err[-400:]!r}")
    resumed(os.path.join(tmp, "ck1"), os.path.join(tmp, "out1"))
    # SIGTERM: Open MPI's mpirun ends the job itself (exit 1); the ranks stop at one step with the state saved.
    status, err = stopped(signal.SIGTERM, os.path.join(tmp, "ck2"), os.path.join(tmp, "out2"))
    steps = set(re.findall(r"stopped at step (\d+) of", err))
    if len(steps) != 1 or err.count("stopped on request") != 2:
        raise Failed(f"SIGTERM to mpirun: the ranks did not both stop at one step ({steps}): {err[-400:]!r}")
    resumed(os.path.join(tmp, "ck2"), os.path.join(tmp, "out2"))
    return ("`mpirun -n 2 icl-verify run ... --checkpoint`: SIGUSR1 to mpirun (forwarded to the ranks): exit 4, no report, "
            "the same command resumes; SIGTERM to mpirun: both ranks stop at the same step with the state saved and the "
            f"run resumes (mpirun itself exits {status}: Open MPI ends the job on SIGTERM)", "", 2)


CASES = [
    ("checkpoint", "a damaged checkpoint file", case_checkpoint),
    ("weights", "a special file as weights", case_weights),
    ("safetensors-nul", "a NUL-padded .safetensors header", case_nul_safetensors),
    ("python", "bad arguments to the Python module", case_python),
    ("one-run-per-folder", "two runs on one output folder", case_lock),
    ("full-disk", "a write that fails part-way (full disk)", case_full_disk),
    ("numbers", "loosely written numbers", case_numbers),
    ("same-path", "a folder named two ways", case_same_path),
    ("mpirun-stop", "stopping a run under mpirun", case_mpirun),
]


NEEDS = {"python": "the Python module", "mpirun-stop": "Open MPI able to start 2 ranks"}


def run_cases(selected):
    rows, failed = [], []
    for cid, fault, fn in CASES:
        if selected and cid not in selected:
            continue
        tmp = tempfile.mkdtemp(prefix=f"icl-faults-{cid}-")
        t0 = time.monotonic()
        try:
            got = fn(tmp)
            if got is None:
                print(f"skipped {cid}: not available here", flush=True)
                rows.append((cid, fault, None, None, None))
                continue
            what, example, count = got
            print(f"ok      {cid} ({count} tried, {time.monotonic() - t0:.0f} s)", flush=True)
            rows.append((cid, fault, what, example, count))
        except Failed as e:
            print(f"FAILED  {cid}: {e}", flush=True)
            failed.append(cid)
        except Exception as e:  # a broken case is a failed case
            print(f"FAILED  {cid}: {type(e).__name__}: {e}", flush=True)
            failed.append(cid)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return rows, failed


def table(rows):
    lines = ["| fault | case (`tests/faults/faults.py`) | what was tried and what it gets | example line |", "|---|---|---|---|"]
    for cid, fault, what, example, _ in rows:
        if what is None:
            lines.append(f"| {fault} | `{cid}` | not run here (needs {NEEDS[cid]}) | |")
            continue
        ex = example.replace("|", "\\|") if example else ""
        lines.append(f"| {fault} | `{cid}` | {what} | {'`' + ex + '`' if ex else ''} |")
    return "\n".join(lines)


def doc_table(path):
    text = open(path).read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} block")
    return text, text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip()


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["test", "table"])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--python-path", default="", help="the folder of the built module (build/python)")
    ap.add_argument("--python", default="/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                    help="the interpreter the module was built for")
    ap.add_argument("--cases", default="")
    ap.add_argument("--check-doc", default="")
    ap.add_argument("--write", default="")
    ARGS = ap.parse_args()
    ARGS.binary = os.path.abspath(ARGS.binary)
    if ARGS.python_path:
        ARGS.python_path = os.path.abspath(ARGS.python_path)
    selected = set(filter(None, ARGS.cases.split(",")))
    rows, failed = run_cases(selected)
    made = table(rows)
    if ARGS.mode == "table":
        if failed:
            raise SystemExit(f"not written: {len(failed)} case(s) failed ({', '.join(failed)})")
        if ARGS.write:
            text, _ = doc_table(ARGS.write)
            text = text[:text.index(BEGIN) + len(BEGIN)] + "\n" + made + "\n" + text[text.index(END):]
            open(ARGS.write, "w").write(text)
            print(f"wrote the table in {ARGS.write}")
        else:
            print(made)
        return 0
    if ARGS.check_doc and not failed and not selected:
        _, held = doc_table(ARGS.check_doc)
        # A case skipped here (mpirun) keeps the documented row of a machine that ran it.
        mine = {r.split(" | ")[1]: r for r in made.splitlines()[2:]}
        theirs = {r.split(" | ")[1]: r for r in held.splitlines()[2:]}
        skipped = {f"`{cid}`" for cid, _, what, _, _ in rows if what is None}
        diff = [k for k in set(mine) | set(theirs) if k not in skipped and mine.get(k) != theirs.get(k)]
        if diff:
            print(f"FAILED  the table in {ARGS.check_doc} is not this run's (cases {sorted(diff)}); regenerate it: "
                  f"python3 tests/faults/faults.py table --binary build/icl-verify --python-path build/python "
                  f"--write {ARGS.check_doc}", flush=True)
            failed.append("doc")
    print(f"{len(rows) - len([r for r in rows if r[2] is None])} cases passed" if not failed else
          f"{len(failed)} failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
