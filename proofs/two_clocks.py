"""The two clocks

Measures two moments for the same work: when Python gets control back after handing out a batch of matrix products, and when the device has finished them. It does this for two matrix sizes whose work differs eightfold. Where ops are queued (a GPU), the first moment barely moves with the size and the second grows with the work; where every op runs before it returns (a CPU), both grow together and read the same. It also runs a small training loop that reads the loss never, once, or at every step, and times one CPU training step phase by phase.
"""

import json
import platform
import subprocess
import time

import torch
from _timing import Timing

PROOF = {"timeout": 240, "accelerator": "prefer", "parallel": False}

N_OPS = 50
STEPS = 30
SAMPLES = 21  # samples per measurement: median and interquartile range reported
THREADS = 1   # one CPU thread: on a busy machine, more threads mostly wait for each other
SIZES = {"cpu": (192, 384), "cuda": (2048, 4096), "mps": (2048, 4096)}  # the larger does 8x the work


def pick_device():
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def sync(kind):
    if kind == "cuda":
        torch.cuda.synchronize()
    elif kind == "mps":
        torch.mps.synchronize()
    # On the CPU every op has already finished when it returns: nothing to wait for.


def cpu_name():
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if platform.system() == "Darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"],
                                 capture_output=True, text=True, timeout=5)
            if out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine()


def device_name(kind):
    if kind == "cuda":
        return torch.cuda.get_device_name(0)
    if kind == "mps":
        return cpu_name() + " (GPU)"
    return cpu_name()


def ms_since(t0):
    return (time.perf_counter_ns() - t0) / 1e6


def queue_and_wait(kind, size):
    """Hand out N_OPS matrix products of one size: Timings of when Python got control back and of
    when the device had finished (milliseconds, stored in the Timing's microsecond fields / 1000)."""
    dev = torch.device(kind)
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=gen).to(dev)
    b = torch.randn(size, size, generator=gen).to(dev)
    for _ in range(3):  # warm up: kernels loaded, allocator primed
        a @ b
    sync(kind)
    queued, done = [], []
    for _ in range(SAMPLES):
        sync(kind)
        t0 = time.perf_counter_ns()
        for _ in range(N_OPS):
            c = a @ b
        queued.append(ms_since(t0))
        sync(kind)
        done.append(ms_since(t0))
    del c
    return (Timing(f"{kind} {size}x{size}: Python back", queued, 1),
            Timing(f"{kind} {size}x{size}: device done", done, 1))


def clocks(kind):
    small, large = SIZES[kind]
    (q_small, d_small), (q_large, d_large) = queue_and_wait(kind, small), queue_and_wait(kind, large)
    q, d = q_large.median_us, d_large.median_us
    return {"device_class": kind, "device": device_name(kind), "ops": N_OPS, "size": large,
            "small_size": small, "work_ratio": (large / small) ** 3,
            "queued_ms": q, "done_ms": d, "queued_iqr_ms": q_large.iqr_us, "done_iqr_ms": d_large.iqr_us,
            "small_queued_ms": q_small.median_us, "small_done_ms": d_small.median_us,
            "return_ratio": q / q_small.median_us, "done_ratio": d / d_small.median_us,
            "python_free_pct": 100.0 * (d - q) / d if d else 0.0, "samples": SAMPLES}


def train(kind, mode):
    """A small training loop; `mode` says when we read the loss back into Python."""
    width, batch = (256, 64) if kind == "cpu" else (4096, 1024)
    dev = torch.device(kind)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, 1),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, width).to(dev)
    y = torch.randn(batch, 1).to(dev)
    seen = []
    sync(kind)
    t0 = time.perf_counter_ns()
    for _ in range(STEPS):
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if mode == "every_step":
            seen.append(loss.item())  # Python must wait for this step to finish
    if mode == "end":
        seen.append(loss.item())  # one wait, for everything queued so far
    python_ms = ms_since(t0)
    sync(kind)
    done_ms = ms_since(t0)
    return python_ms, done_ms, loss.item()


def step_phases():
    """One training step on the CPU, phase by phase: on a CPU each call returns when its work
    is done, so timing each call in turn times the work itself, reading the loss included."""
    width, batch = 256, 64
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, 1),
    )
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(batch, width), torch.randn(batch, 1)
    names = ("forward", "backward", "optimizer step", "loss.item()")
    spent = {name: [] for name in names}
    for step in range(STEPS * 5 + 3):
        t0 = time.perf_counter_ns()
        loss = torch.nn.functional.mse_loss(model(x), y)
        t1 = time.perf_counter_ns()
        opt.zero_grad()
        loss.backward()
        t2 = time.perf_counter_ns()
        opt.step()
        t3 = time.perf_counter_ns()
        loss.item()
        t4 = time.perf_counter_ns()
        if step >= 3:  # the first steps warm the allocator and the kernels
            for name, (a, b) in zip(names, ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
                spent[name].append((b - a) / 1e3)
    return {name: Timing(name, spent[name], 1) for name in names}


torch.set_num_threads(THREADS)
kind = pick_device()
results = [clocks("cpu")]
if kind != "cpu":
    results.append(clocks(kind))
main = results[-1]

print(f"torch {torch.__version__}, torch.set_num_threads({torch.get_num_threads()})")
print(f"clock 1: when Python gets control back after asking for {N_OPS} matrix products")
print("clock 2: when the device has finished them (after a synchronize on an accelerator)")
print(f"Median of {SAMPLES} runs each; +- is half the interquartile range.")
print()
print(f"  {'device':<6} {'matrix':>11}  {'Python back':>17}  {'device done':>17}")
for r in results:
    for size, q, d in ((r["small_size"], r["small_queued_ms"], r["small_done_ms"]),
                       (r["size"], r["queued_ms"], r["done_ms"])):
        print(f"  {r['device_class']:<6} {f'{size}x{size}':>11}  {q:>14.2f} ms  {d:>14.2f} ms")
print()
for r in results:
    print(f"  {r['device_class']}: {r['device']}")
    print(f"    {r['work_ratio']:.0f}x the work made Python wait {r['return_ratio']:.1f}x longer"
          f" and the device take {r['done_ratio']:.1f}x longer")
print()
if kind == "cpu":
    print("No accelerator here. On the CPU each matrix product runs before the call")
    print("returns: the time until Python gets control back grows with the work, and")
    print("the second clock reads what the first does. There is one clock.")
else:
    print(f"On {kind}, Python got control back after {main['queued_ms']:.2f} ms and was free")
    print(f"for {main['python_free_pct']:.1f}% of the {main['done_ms']:.2f} ms the device needed.")
print()

MODES = ("never", "end", "every_step")
train(kind, "never")  # warm-up run, not reported
runs = {mode: [] for mode in MODES}
for _ in range(SAMPLES):  # modes take turns, so a burst of outside load hits all of them
    for mode in MODES:
        runs[mode].append(train(kind, mode))
reads = []
for mode in MODES:
    py = Timing(mode, [r[0] for r in runs[mode]], 1)
    done = Timing(mode, [r[1] for r in runs[mode]], 1)
    reads.append({"mode": mode, "python_ms": py.median_us, "python_iqr_ms": py.iqr_us,
                  "done_ms": done.median_us, "done_iqr_ms": done.iqr_us, "loss": runs[mode][-1][2]})

labels = {"never": "loss read: never", "end": "loss read: once, at the end",
          "every_step": "loss read: every step"}
print(f"Training loop on {kind}, {STEPS} steps, median of {SAMPLES} runs each:")
print(f"  {'loss read: when?':<27}  {'Python busy':>20}  {'device done':>20}")
for r in reads:
    print(f"  {labels[r['mode']]:<27}  {r['python_ms']:>8.2f} +-{r['python_iqr_ms'] / 2:<5.2f} ms"
          f"  {r['done_ms']:>8.2f} +-{r['done_iqr_ms'] / 2:<5.2f} ms")
print("  (every step means loss.item() inside the loop)")
losses = {round(r["loss"], 6) for r in reads}
if len(losses) == 1:
    print(f"  final loss {reads[0]['loss']:.5f} in all three: reading changes nothing")
else:
    print("  final loss: " + ", ".join(f"{r['loss']:.5f}" for r in reads))
spread = max(r["python_iqr_ms"] for r in reads)
gap = max(r["python_ms"] for r in reads) - min(r["python_ms"] for r in reads)
print()
if kind == "cpu":
    print(f"On the CPU the rows differ by {gap:.2f} ms; their interquartile ranges reach {spread:.2f} ms:")
    print("what they show is noise. There is no queue for a read to drain.")
else:
    print("Reading every step keeps Python waiting on the device at each")
    print("step; reading once at the end costs a single wait.")

print()
phases = step_phases()
step_us = sum(p.median_us for p in phases.values())
read = phases["loss.item()"]
print(f"One training step on the CPU, phase by phase (median of {STEPS * 5}):")
for p in phases.values():
    print(f"  {p.what:<16} {p.median_us:>9.1f} us  +-{p.iqr_us / 2:<6.1f} {p.median_us / step_us:>6.1%}")
print(f"  {'whole step':<16} {step_us:>9.1f} us")
print(f"On the CPU, reading the loss costs {read.median_us:.1f} us: there is")
print("no queue to drain, so the read waits for nothing.")

print()
print("CLOCKS=" + json.dumps(main))
print("PHASES=" + json.dumps({
    "device_class": "cpu", "step_ms": step_us / 1000.0,
    "phases": [{"phase": p.what, "ms": p.median_us / 1000.0, "iqr_ms": p.iqr_us / 1000.0}
               for p in phases.values()],
    "read_us": read.median_us, "read_share": read.median_us / step_us}))
print("CLOCKS_ALL=" + json.dumps(results))
print("READS=" + json.dumps(reads))
print("READ_NOISE=" + json.dumps({"gap_ms": gap, "max_iqr_ms": spread}))
print("STEPS=" + json.dumps(STEPS))
