"""A transpose is free until something has to walk it

Times, on one thread, four pairs of operations on a 2048 x 2048 float32 matrix and on
its transpose: copying it into a preallocated buffer, `.contiguous()`, a row sum, and
an add against a second matrix in the other layout. The transpose itself copies
nothing; the cost shows up in the first kernel that reads the bytes out of order.
"""

import json
import statistics
import time

import torch

PROOF = {"timeout": 120, "parallel": False}

THREADS = 1     # one intra-op thread, so runs and machines compare fairly
N = 2048        # 2048 x 2048 float32: 16 MiB, larger than most caches
ROUNDS = 15     # timed rounds; every case runs once per round; we keep the median

torch.set_num_threads(THREADS)
torch.manual_seed(0)
a = torch.randn(N, N)
b = torch.randn(N, N)
t = a.t()                          # same bytes, strides swapped
col_major = a.t().contiguous().t()  # same values as a, stored column by column
out = torch.empty(N, N)

cases = {  # key: (label, callable)
    "transpose": ("a.t() itself", lambda: a.t()),
    "copy_contiguous": ("out.copy_(a)", lambda: out.copy_(a)),
    "copy_transposed": ("out.copy_(a.t())", lambda: out.copy_(t)),
    "contiguous_noop": ("a.contiguous()", lambda: a.contiguous()),
    "contiguous_copy": ("a.t().contiguous()", lambda: t.contiguous()),
    "sum_rows": ("a.sum(dim=1)", lambda: a.sum(dim=1)),
    "sum_rows_colmajor": ("same, column-major", lambda: col_major.sum(dim=1)),
    "add_same": ("a + b", lambda: a + b),
    "add_mixed": ("a + b.t()", lambda: a + b.t()),
}


def once(fn):
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1e6


for _, fn in cases.values():   # warm up: allocator, caches, lazy initialisation
    for _ in range(3):
        fn()
samples = {key: [] for key in cases}
for _ in range(ROUNDS):        # interleaved, so a burst of load spreads over all
    for key, (_, fn) in cases.items():
        samples[key].append(once(fn))
ms = {key: statistics.median(v) for key, v in samples.items()}

nbytes = a.untyped_storage().nbytes()
fresh = t.contiguous()
print(f"a: {N} x {N} float32, {nbytes:,} bytes; torch.set_num_threads({THREADS})")
print(f"median of {ROUNDS} interleaved rounds")
print()
print(f"  {'operation':<22} {'time':>11}")
for key, (label, _) in cases.items():
    print(f"  {label:<22} {ms[key]:>8.3f} ms")
print()
copy_ratio = ms["copy_transposed"] / ms["copy_contiguous"]
sum_ratio = ms["sum_rows_colmajor"] / ms["sum_rows"]
add_ratio = ms["add_mixed"] / ms["add_same"]
gbps = 2 * nbytes / (ms["copy_contiguous"] / 1e3) / 1e9
print(f"transposed copy / plain copy     {copy_ratio:5.1f}x")
print(f"column-major row sum / row sum   {sum_ratio:5.1f}x")
print(f"mixed-layout add / same layout   {add_ratio:5.1f}x")
print(f"plain copy moves                 {gbps:5.1f} GB/s (read + write)")
print(f"a.t().contiguous() allocated     {fresh.untyped_storage().nbytes():,} bytes")

print()
print("WALK=" + json.dumps({key: ms[key] for key in cases}))
print("RATIO=" + json.dumps({"copy": copy_ratio, "sum": sum_ratio, "add": add_ratio}))
print("COPY=" + json.dumps({
    "n": N, "bytes": nbytes, "threads": THREADS, "gb_per_s": gbps,
    "contiguous_new_bytes": fresh.untyped_storage().nbytes(),
    "noop_shares": a.contiguous().data_ptr() == a.data_ptr(),
}))
