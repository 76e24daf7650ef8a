"""The fixed cost of one eager op

Times `torch.add` on tensors from 1 to 4,194,304 elements, then takes a one-element add apart: a call that allocates nothing (`a.add_(b)`), a call that touches no data at all (`a.t()`), the add with the autograd layers taken out (`inference_mode`) and the add that records a graph node. What is timed is the whole eager call as Python sees it: parsing the arguments, the `__torch_function__` check, the dispatcher, the autograd kernel, setting up the loop, allocating the output and wrapping it for Python.
"""

import json
import platform

import torch
from _timing import cache_sizes, measure, method_line, show

PROOF = {"timeout": 180, "parallel": False}

THREADS = 1       # one intra-op thread, so machines and runs compare fairly
SAMPLES = 21      # samples per case; we report the median and the interquartile range
TARGET_MS = 2.0   # each sample loops over calls for about this long

torch.set_num_threads(THREADS)
torch.manual_seed(0)


def make_add(n):
    a = torch.randn(n)
    b = torch.randn(n)
    return lambda: torch.add(a, b)


# Every size plus, for scale, the same loop around a plain Python float addition.
x, y = 1.5, 2.5
sizes = [4 ** k for k in range(12)]
cases = {n: (f"torch.add, {n:,} elements", make_add(n)) for n in sizes}
cases["python"] = ("a Python float add", lambda: x + y)
timed = measure(cases, samples=SAMPLES, target_ms=TARGET_MS)
sweep = [{"numel": n, "us": timed[n].median_us, "iqr_us": timed[n].iqr_us} for n in sizes]
python_us = timed["python"].median_us

# The one-element add, taken apart.
a, b = torch.randn(1), torch.randn(1)
g = torch.randn(1, requires_grad=True)


parts = {
    "transpose": ("a.t(): header only", lambda: a.t()),
    "add_inplace": ("a.add_(b): no output", lambda: a.add_(b)),
    "add": ("torch.add(a, b)", lambda: torch.add(a, b)),
    "add_records": ("same, b requires grad", lambda: torch.add(a, g)),
}
split = measure(parts, samples=SAMPLES, target_ms=TARGET_MS)
# inference_mode takes the autograd keys out of the thread's dispatch; tensors made inside it
# carry none. Entering it costs about as much as the add, so the whole sampling runs inside it.
with torch.inference_mode():
    ai, bi = torch.randn(1), torch.randn(1)
    split.update(measure({"add_inference": ("same, inside inference_mode", lambda: torch.add(ai, bi))},
                         samples=SAMPLES, target_ms=TARGET_MS))

small, large = sweep[0], sweep[-1]
ops_per_s = 1e6 / small["us"]

print(f"torch {torch.__version__}, {platform.machine()}, torch.set_num_threads({THREADS})")
print("timed: the whole eager call as Python sees it, output allocated and freed")
print(method_line(SAMPLES, TARGET_MS))
print()
print(f"  {'elements':>11}  {'time per add':>14}  {'IQR':>9}  {'vs 1 element':>12}  {'ns per element':>14}")
for row in sweep:
    ratio = row["us"] / small["us"]
    per_elem = row["us"] * 1000.0 / row["numel"]
    print(f"  {row['numel']:>11,}  {row['us']:>11.2f} us  {row['iqr_us']:>6.2f} us  {ratio:>11.1f}x  {per_elem:>14.3f}")
print()

# Where does the work start to outweigh the fixed cost? First size that costs twice the 1-element add.
knee = next((r for r in sweep if r["us"] >= 2 * small["us"]), large)
print(f"fixed cost (1 element)  {small['us']:.2f} us")
print(f"4,194,304 elements      {large['us']:.2f} us")
print(f"ceiling for tiny ops    {ops_per_s:,.0f} ops per second")
print(f"time doubles by         {knee['numel']:,} elements")
print(f"a Python float add      {python_us * 1000:.0f} ns in the same loop")
print(f"tiny torch.add / float  {small['us'] / python_us:.0f}x")
caches = cache_sizes()
if caches:
    print("caches reported for CPU 0: " + ", ".join(
        f"L{k[1]} {v // 1024:,} KiB" for k, v in sorted(caches.items())))
print()
print("one element, taken apart:")
for key in split:
    print(show(split[key], width=27))

print()
print("TOLL=" + json.dumps({
    "op": "add", "small_numel": small["numel"], "small_us": small["us"],
    "small_iqr_us": small["iqr_us"],
    "large_numel": large["numel"], "large_us": large["us"], "ops_per_s": ops_per_s,
    "threads": THREADS, "knee_numel": knee["numel"], "samples": SAMPLES,
    "python_add_ns": python_us * 1000.0, "python_add_ratio": small["us"] / python_us,
    "large_ratio": large["us"] / small["us"],
}))
print("SWEEP=" + json.dumps(sweep))
print("CACHE=" + json.dumps(cache_sizes()))
print("PARTS=" + json.dumps({key: t.data() for key, t in split.items()}))
