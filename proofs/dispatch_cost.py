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


def median_us(fn):
    for _ in range(5):  # warm up: caches, allocator, lazy initialisation
        fn()
    guess = per_call_us(fn, 3)
    reps = max(3, int(BATCH_NS / 1000.0 / max(guess, 1e-3)))
    return statistics.median(per_call_us(fn, reps) for _ in range(REPEATS))


torch.set_num_threads(THREADS)
torch.manual_seed(0)

sweep = []
for k in range(12):
    n = 4 ** k
    a = torch.randn(n)
    b = torch.randn(n)
    sweep.append({"numel": n, "us": median_us(lambda: torch.add(a, b))})

# For scale: the same loop around a plain Python float addition.
x, y = 1.5, 2.5
python_us = median_us(lambda: x + y)

small, large = sweep[0], sweep[-1]
ops_per_s = 1e6 / small["us"]

print(f"torch {torch.__version__}, {platform.machine()}, torch.set_num_threads({THREADS})")
print(f"median of {REPEATS} timed batches per size, each batch about {BATCH_NS / 1e6:.0f} ms")
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
print(f"a Python float add      {python_us * 1000:.0f} ns in the same loop, "
      f"so one tiny torch.add costs {small['us'] / python_us:.0f} of them")

print()
print("TOLL=" + json.dumps({
    "op": "add", "small_numel": small["numel"], "small_us": small["us"],
    "large_numel": large["numel"], "large_us": large["us"], "ops_per_s": ops_per_s,
    "threads": THREADS, "knee_numel": knee["numel"],
    "python_add_ns": python_us * 1000.0, "python_add_ratio": small["us"] / python_us,
    "large_ratio": large["us"] / small["us"],
}))
print("SWEEP=" + json.dumps(sweep))
