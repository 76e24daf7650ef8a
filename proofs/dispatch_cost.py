"""The fixed cost of one op

Times torch.add on tensors from 1 to 4,194,304 elements. For small tensors the time barely moves: what you pay is the fixed toll of crossing from
Python into C++ and through the dispatcher, not the arithmetic. That toll caps how
many small ops per second eager PyTorch can run.
"""

import json
import platform
import statistics
import time

import torch

PROOF = {"timeout": 120, "parallel": False}

THREADS = 1          # one intra-op thread, so machines and runs compare fairly
BATCH_NS = 4_000_000  # aim for ~4 ms per timed batch
REPEATS = 21          # batches per size; we report the median


def per_call_us(fn, reps):
    start = time.perf_counter_ns()
    for _ in range(reps):
        fn()
    return (time.perf_counter_ns() - start) / reps / 1000.0


def calibrate(fn):
    for _ in range(5):  # warm up: caches, allocator, lazy initialisation
        fn()
    guess = per_call_us(fn, 3)
    return max(3, int(BATCH_NS / 1000.0 / max(guess, 1e-3)))


def make_add(n):
    a = torch.randn(n)
    b = torch.randn(n)
    return lambda: torch.add(a, b)


torch.set_num_threads(THREADS)
torch.manual_seed(0)

# Every size plus, for scale, the same loop around a plain Python float addition.
x, y = 1.5, 2.5
cases = [(4 ** k, make_add(4 ** k)) for k in range(12)] + [("python", lambda: x + y)]
reps = {key: calibrate(fn) for key, fn in cases}
# Interleave the batches (one of each size per round), so that a burst of load from
# something else on the machine spreads over all sizes instead of spoiling one.
samples = {key: [] for key, _ in cases}
for _ in range(REPEATS):
    for key, fn in cases:
        samples[key].append(per_call_us(fn, reps[key]))
medians = {key: statistics.median(values) for key, values in samples.items()}
sweep = [{"numel": key, "us": medians[key]} for key, _ in cases if key != "python"]
python_us = medians["python"]


small, large = sweep[0], sweep[-1]
ops_per_s = 1e6 / small["us"]

print(f"torch {torch.__version__}, {platform.machine()}, torch.set_num_threads({THREADS})")
print(f"median of {REPEATS} timed batches per size, each batch about {BATCH_NS / 1e6:.0f} ms,"
      " sizes interleaved")
print()
print(f"  {'elements':>11}  {'time per add':>14}  {'vs 1 element':>12}  {'ns per element':>14}")
for row in sweep:
    ratio = row["us"] / small["us"]
    per_elem = row["us"] * 1000.0 / row["numel"]
    print(f"  {row['numel']:>11,}  {row['us']:>11.2f} us  {ratio:>11.1f}x  {per_elem:>14.3f}")
print()

# Where does the work start to outweigh the toll? First size that costs twice the 1-element add.
knee = next((r for r in sweep if r["us"] >= 2 * small["us"]), large)
print(f"toll (1 element)        {small['us']:.2f} us")
print(f"4,194,304 elements      {large['us']:.2f} us")
print(f"ceiling for tiny ops    {ops_per_s:,.0f} ops per second")
print(f"time doubles by         {knee['numel']:,} elements")
print(f"a Python float add      {python_us * 1000:.0f} ns in the same loop")
print(f"tiny torch.add / float  {small['us'] / python_us:.0f}x")

print()
print("TOLL=" + json.dumps({
    "op": "add", "small_numel": small["numel"], "small_us": small["us"],
    "large_numel": large["numel"], "large_us": large["us"], "ops_per_s": ops_per_s,
    "threads": THREADS, "knee_numel": knee["numel"],
    "python_add_ns": python_us * 1000.0, "python_add_ratio": small["us"] / python_us,
    "large_ratio": large["us"] / small["us"],
}))
print("SWEEP=" + json.dumps(sweep))
