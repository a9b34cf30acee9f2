"""What the PyTorch training-step baselines (bench/torch_train_step.py, bench/torch_sja_fig1_step.py) share: their
common options and set-up, and the timing loop: warm-up steps, then `steps` steps timed (wall and process CPU time;
on a GPU the clock is read after the device has finished), and the lines every such script prints."""
import time

import torch


def add_step_args(ap, steps):
    """The options every training-step baseline takes (`steps`: the default number of timed steps)."""
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--batch", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda on a GPU machine (bench/gpu/check.sh)")


def set_up(a):
    """Threads and seed as the options say; returns the dtype and the device."""
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    return (torch.float64 if a.dtype == "float64" else torch.float32), torch.device(a.device)


def time_steps(step, a, dev, extra):
    """Runs step() a.warmup times, then a.steps times timed; prints per-step times, the settings in `extra`
    (name -> value, in order) and the last loss."""
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    for _ in range(a.warmup):
        step()
    sync()
    t0, c0 = time.perf_counter(), time.process_time()
    loss = 0.0
    for _ in range(a.steps):
        loss = step()
    sync()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"per_step_ms: {1e3 * wall / a.steps:.3f}")
    print(f"per_step_cpu_ms: {1e3 * cpu / a.steps:.3f}")
    print(f"steps: {a.steps}")
    for k, v in extra.items():
        print(f"{k}: {v}")
    print(f"threads: {torch.get_num_threads()}")
    print(f"dtype: {a.dtype}")
    print(f"device: {a.device}")
    print(f"torch: {torch.__version__}")
    print(f"final_loss: {loss:.6g}")
