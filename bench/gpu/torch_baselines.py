#!/usr/bin/env python3
"""The PyTorch baselines of bench/gpu/check.sh's speed table, on the same GPU, in ONE process (PyTorch's import and
the CUDA context cost seconds each time; a lent GPU's minutes are few): the sja.thm2 estimator at d = 4, n = 200 and
at d = 8, n = 1600 (bench/torch_sja_thm2.py), one Adam step of acds form (8) (3 layers, d = 5, n = 20, batch 4000;
bench/torch_train_step.py) and one of sja.fig1's 12-layer bilinear model (d = 4, dbar = 12, n = 200, batch 4000;
bench/torch_sja_fig1_step.py), each in float64 and float32. Each script runs as its own command line would run it
(runpy, its own sys.argv); one that fails is reported and the next runs.

    python3 bench/gpu/torch_baselines.py [--device cuda] [--smoke]

--smoke: every baseline on a few prompts and steps (the rehearsal of the plumbing on a machine without a GPU:
bench/gpu/check.sh runs it with --device cpu there); its numbers time nothing worth keeping.
"""
import pathlib
import runpy
import sys
import time
import traceback

BENCH = pathlib.Path(__file__).resolve().parent.parent
sys.dont_write_bytecode = True


def smoke(args):
    """The same command line on a few prompts and steps."""
    small = {"--prompts": "256", "--batch": "128", "--steps": "2"}
    return [small.get(args[i - 1], a) if i else a for i, a in enumerate(args)]


def runs(device):
    for dt in ("float64", "float32"):
        common = ["--device", device, "--dtype", dt]
        yield "torch_sja_thm2.py", common + ["--threads", "0", "--prompts", "1048576", "--batch", "65536"]
        yield "torch_sja_thm2.py", common + ["--threads", "0", "--d", "8", "--n", "1600", "--prompts", "65536",
                                             "--batch", "4096"]
        yield "torch_train_step.py", common + ["--batch", "4000", "--d", "5", "--n", "20", "--layers", "3",
                                               "--steps", "50"]
        yield "torch_sja_fig1_step.py", common + ["--batch", "4000", "--d", "4", "--dbar", "12", "--n", "200",
                                                  "--steps", "20"]


def main():
    argv = list(sys.argv)
    device = argv[argv.index("--device") + 1] if "--device" in argv else "cuda"
    sys.path.insert(0, str(BENCH))
    failed = 0
    for script, args in runs(device):
        if "--smoke" in argv:
            args = smoke(args)
        print(f"# {script} {' '.join(args)}", flush=True)
        t0 = time.perf_counter()
        sys.argv = [str(BENCH / script)] + args
        try:
            runpy.run_path(str(BENCH / script), run_name="__main__")
        except SystemExit as e:
            if e.code not in (None, 0):
                failed += 1
                print(f"# exit {e.code}")
        except Exception:  # noqa: BLE001 - reported, and the next baseline runs
            failed += 1
            traceback.print_exc(limit=3)
        print(f"# {time.perf_counter() - t0:.1f} s", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
