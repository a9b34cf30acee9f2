"""The timing loop of the PyTorch training-step baselines (bench/torch_train_step.py, bench/torch_sja_fig1_step.py):
warm-up steps, then `steps` steps timed (wall and process CPU time; on a GPU the clock is read after the device has
finished), and the lines every such script prints."""
import time

import torch


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
