"""The two clocks

Measures two different moments for the same work: when Python has finished handing
ops out, and when the device has finished running them. On a GPU the first comes
long before the second, so Python is free in between unless something (like
.item()) makes it wait. On a CPU the two moments are the same, and the proof says so;
it also times one training step on the CPU phase by phase, the read of the loss
included, to show what a read costs where there is no queue.
"""

import json
import os
import platform
import statistics
import subprocess
import time

import torch

PROOF = {"timeout": 180, "accelerator": "prefer", "parallel": False}

N_OPS = 50
STEPS = 30
REPEATS = 5
THREADS = 1  # one CPU thread: on a busy machine, more threads mostly wait for each other


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


def queue_and_wait(kind):
    """Queue N_OPS matrix products; note when Python is done queueing and when they finish."""
    size = 384 if kind == "cpu" else 4096
    dev = torch.device(kind)
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=gen).to(dev)
    b = torch.randn(size, size, generator=gen).to(dev)
    for _ in range(3):  # warm up: kernels loaded, allocator primed
        a @ b
    sync(kind)
    queued, done = [], []
    for _ in range(REPEATS):
        sync(kind)
        t0 = time.perf_counter_ns()
        for _ in range(N_OPS):
            c = a @ b
        queued.append(ms_since(t0))
        sync(kind)
        done.append(ms_since(t0))
    del c
    q, d = statistics.median(queued), statistics.median(done)
    return {"device_class": kind, "device": device_name(kind), "ops": N_OPS, "size": size,
            "queued_ms": q, "done_ms": d, "python_free_pct": 100.0 * (d - q) / d if d else 0.0}


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
    python_ms = ms_since(t0)
    if mode == "end":
        seen.append(loss.item())  # one wait, for everything queued so far
    sync(kind)
    done_ms = ms_since(t0)
    return python_ms, done_ms, loss.item()


torch.set_num_threads(THREADS)
kind = pick_device()
results = [queue_and_wait("cpu")]
if kind != "cpu":
    results.append(queue_and_wait(kind))
main = results[-1]

print(f"torch {torch.__version__}, torch.set_num_threads({torch.get_num_threads()})")
print(f"clock 1: when Python has queued {N_OPS} matrix products")
print("clock 2: when the device has finished them")
print(f"Median of {REPEATS} runs.")
print()
print(f"  {'device':<6} {'matrix':>11}  {'queued':>10}  {'done':>10}  {'Python free':>11}")
for r in results:
    shape = f"{r['size']}x{r['size']}"
    print(f"  {r['device_class']:<6} {shape:>11}  {r['queued_ms']:>7.2f} ms  {r['done_ms']:>7.2f} ms"
          f"  {r['python_free_pct']:>10.1f}%")
print()
for r in results:
    print(f"  {r['device_class']}: {r['device']}")
print()
if kind == "cpu":
    print("No GPU here. On the CPU an op returns only once its work is")
    print("done, so the two clocks read the same: Python is never free")
    print("while the device works.")
else:
    print(f"On {kind}, Python finished queueing after {main['queued_ms']:.2f} ms")
    print(f"and was free for {main['python_free_pct']:.1f}% of the {main['done_ms']:.2f} ms")
    print("the device needed.")
print()

def step_phases(rounds=5):
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
    for step in range(STEPS * rounds + 3):
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
                spent[name].append((b - a) / 1e6)
    return [{"phase": name, "ms": statistics.median(spent[name])} for name in names]


MODES = ("never", "end", "every_step")
ROUNDS = 5
train(kind, "never")  # warm-up run, not reported
runs = {mode: [] for mode in MODES}
for _ in range(ROUNDS):  # modes take turns, so a burst of outside load hits all of them
    for mode in MODES:
        runs[mode].append(train(kind, mode))
reads = [{"mode": mode,
          "python_ms": statistics.median(r[0] for r in runs[mode]),
          "done_ms": statistics.median(r[1] for r in runs[mode]),
          "loss": runs[mode][-1][2]} for mode in MODES]

labels = {"never": "loss read: never", "end": "loss read: once, at the end",
          "every_step": "loss read: every step"}
print(f"Training loop on {kind}, {STEPS} steps, median of {ROUNDS} runs each:")
print(f"  {'loss read: when?':<27}  {'Python busy':>11}  {'device done':>11}")
for r in reads:
    print(f"  {labels[r['mode']]:<27}  {r['python_ms']:>8.2f} ms  {r['done_ms']:>8.2f} ms")
print("  (every step means loss.item() inside the loop)")
losses = {round(r["loss"], 6) for r in reads}
if len(losses) == 1:
    print(f"  final loss {reads[0]['loss']:.5f} in all three: reading changes nothing")
else:
    print("  final loss: " + ", ".join(f"{r['loss']:.5f}" for r in reads))
print()
if kind == "cpu":
    print("On the CPU, Python busy and device done agree in every row:")
    print("there is no second clock to wait for.")
else:
    print("Reading every step keeps Python waiting on the device at each")
    print("step; reading once at the end costs a single wait.")

print()
phases = step_phases()
step_ms = sum(p["ms"] for p in phases)
read = phases[-1]
print(f"One training step on the CPU, phase by phase (median of {STEPS * 5}):")
for p in phases:
    print(f"  {p['phase']:<16} {p['ms'] * 1000:>9.1f} us  {p['ms'] / step_ms:>6.1%}")
print(f"  {'whole step':<16} {step_ms * 1000:>9.1f} us")
print(f"On the CPU, reading the loss costs {read['ms'] * 1000:.1f} us: there is")
print("no queue to drain, so the read waits for nothing.")

print()
print("CLOCKS=" + json.dumps(main))
print("PHASES=" + json.dumps({"device_class": "cpu", "step_ms": step_ms, "phases": phases,
                             "read_us": read["ms"] * 1000, "read_share": read["ms"] / step_ms}))
print("CLOCKS_ALL=" + json.dumps(results))
print("READS=" + json.dumps(reads))
print("STEPS=" + json.dumps(STEPS))
