"""A transpose is free until something has to walk it

Times, on one thread, operations on a 2048 x 2048 float32 matrix and on its transpose: making the transpose, `.contiguous()` on a tensor that already is, copying into a preallocated buffer (plain, transposed, and the same transposed walk as a 3-D copy that PyTorch's tiled 2-D transpose cannot take), `.contiguous()` of the transpose, a row sum, and an add into a preallocated output with the second input in the same or the other layout. The transpose copies nothing; the cost shows up in the first kernel that reads the bytes out of order.
"""

import json

import torch
from _timing import cache_sizes, measure, method_line, show

PROOF = {"timeout": 240, "parallel": False}

THREADS = 1      # one intra-op thread, so runs and machines compare fairly
N = 2048         # 2048 x 2048 float32: 16 MiB, larger than a core's L2 cache
SAMPLES = 21     # samples per case; median and interquartile range reported
TARGET_MS = 2.0  # short calls loop for about this long per sample; long ones run once


torch.set_num_threads(THREADS)
torch.manual_seed(0)
a = torch.randn(N, N)
b = torch.randn(N, N)
t = a.t()                            # same bytes, strides swapped
col_major = a.t().contiguous().t()   # same values as a, stored column by column
out = torch.empty(N, N)
# The transposed walk again, as a 3-D copy: split the first dimension in two. The values and the
# order of reads are those of out.copy_(a.t()), but the 2-D tiled-transpose path does not apply,
# so TensorIterator's generic strided loop does the work.
t3 = t.unflatten(0, (N // 2, 2))
out3 = out.view(N // 2, 2, N)

cases = {  # key: (what is timed, callable)
    "transpose": ("a.t()", lambda: a.t()),
    "contiguous_noop": ("a.contiguous()", lambda: a.contiguous()),
    "copy_contiguous": ("out.copy_(a)", lambda: out.copy_(a)),
    "copy_transposed": ("out.copy_(a.t())", lambda: out.copy_(t)),
    "copy_generic": ("same walk, as a 3-D copy", lambda: out3.copy_(t3)),
    "contiguous_copy": ("a.t().contiguous()", lambda: t.contiguous()),
    "sum_rows": ("a.sum(dim=1)", lambda: a.sum(dim=1)),
    "sum_rows_colmajor": ("same, column-major", lambda: col_major.sum(dim=1)),
    "add_same": ("add(a, b, out=out)", lambda: torch.add(a, b, out=out)),
    "add_mixed": ("add(a, b.t(), out=out)", lambda: torch.add(a, b.t(), out=out)),
}
timed = measure(cases, samples=SAMPLES, target_ms=TARGET_MS)
ms = {key: tm.median_us / 1000.0 for key, tm in timed.items()}


def ratio(top, bottom):
    """The ratio of two medians, with the band the quartiles allow (slowest and fastest pairing)."""
    hi, lo = timed[top], timed[bottom]
    return {"ratio": hi.median_us / lo.median_us,
            "low": hi.q1_us / lo.q3_us, "high": hi.q3_us / lo.q1_us}


nbytes = a.untyped_storage().nbytes()
fresh = t.contiguous()
caches = cache_sizes()
print(f"a: {N} x {N} float32, {nbytes:,} bytes; torch.set_num_threads({THREADS})")
if caches:
    print("caches reported for CPU 0: " + ", ".join(
        f"L{k[1]} {v // 1024:,} KiB" for k, v in sorted(caches.items())))
print("timed: each call alone, its result freed; out= writes into a buffer made once")
print(method_line(SAMPLES, TARGET_MS))
print()
print(f"  {'operation':<28} {'median':>13}  {'spread':<10}")
for key in ("transpose", "contiguous_noop"):
    print(show(timed[key], unit="us"))
for key in list(cases)[2:]:
    print(show(timed[key], unit="ms"))
print()
ratios = {"copy": ratio("copy_transposed", "copy_contiguous"),
          "copy_generic": ratio("copy_generic", "copy_contiguous"),
          "sum": ratio("sum_rows_colmajor", "sum_rows"),
          "add": ratio("add_mixed", "add_same")}
labels = {"copy": "transposed copy / plain copy", "copy_generic": "3-D strided copy / plain copy",
          "sum": "column-major row sum / row sum", "add": "mixed-layout add / same layout"}
for key, label in labels.items():
    r = ratios[key]
    print(f"{label:<32} {r['ratio']:5.1f}x  (quartiles allow {r['low']:.1f} to {r['high']:.1f})")
gbps = 2 * nbytes / (ms["copy_contiguous"] / 1e3) / 1e9
print(f"plain copy moves                 {gbps:5.1f} GB/s (read + write)")
print(f"a.t().contiguous() allocated     {fresh.untyped_storage().nbytes():,} bytes")

print()
print("WALK=" + json.dumps(ms))
print("US=" + json.dumps({key: tm.median_us for key, tm in timed.items()}))
print("SPREAD=" + json.dumps({key: tm.spread for key, tm in timed.items()}))
print("RATIO=" + json.dumps({key: r["ratio"] for key, r in ratios.items()}))
print("BAND=" + json.dumps(ratios))
print("COPY=" + json.dumps({
    "n": N, "bytes": nbytes, "threads": THREADS, "gb_per_s": gbps, "samples": SAMPLES,
    "contiguous_new_bytes": fresh.untyped_storage().nbytes(),
    "noop_shares": a.contiguous().data_ptr() == a.data_ptr(),
    "generic_same_values": bool(torch.equal(out3.copy_(t3).view(N, N), t)),
}))
print("CACHE=" + json.dumps(caches))
