"""channels_last keeps the shape and reorders the bytes

Makes an NCHW image batch, converts it to `torch.channels_last`, and prints the
shape, the strides, `is_contiguous()` under each memory format and the order in
which the first storage elements are laid out; then which shapes are contiguous in both
formats at once, which ops keep the format, and the time of the conversion (one thread,
into a buffer made once) against a plain copy of the same bytes.
"""

import json

import torch
from _timing import measure, method_line, show

PROOF = {"timeout": 120, "parallel": False}

THREADS = 1
SAMPLES = 21     # samples per case: median and interquartile range reported
TARGET_MS = 2.0  # a sample loops over calls for about this long (these copies run once)
CL = torch.channels_last

torch.set_num_threads(THREADS)
torch.manual_seed(0)

# A tiny batch whose values name their own position: value = c * 100 + h * 10 + w.
N, C, H, W = 1, 3, 2, 2
idx = torch.arange(C * H * W).reshape(N, C, H, W)
small = (torch.div(idx, H * W, rounding_mode="floor") * 100
         + torch.div(idx % (H * W), W, rounding_mode="floor") * 10
         + idx % W).float()
small_cl = small.to(memory_format=CL)


def storage_order(x):
    """The values in the order they sit in memory."""
    return torch.as_strided(x, (x.numel(),), (1,)).int().tolist()


print(f"x: shape {tuple(small.shape)} (N, C, H, W), value = c*100 + h*10 + w")
for label, x in (("NCHW", small), ("channels_last", small_cl)):
    order = " ".join(str(v) for v in storage_order(x))
    print(f"  {label:<13} shape {tuple(x.shape)}  stride {tuple(x.stride())}")
    print(f"    in memory:  {order}")
print()
print(f"  {'':<16} {'contiguous()':>13} {'channels_last':>14}")
for label, x in (("NCHW", small), ("channels_last", small_cl)):
    a = x.is_contiguous()
    b = x.is_contiguous(memory_format=CL)
    print(f"  {label:<16} {str(a):>13} {str(b):>14}")
print()

# Which ops keep the format?
big = torch.randn(16, 64, 56, 56)
big_cl = big.to(memory_format=CL)
conv = torch.nn.Conv2d(64, 64, 1, bias=False)
keeps = {
    "relu": torch.relu(big_cl).is_contiguous(memory_format=CL),
    "add": (big_cl + 1).is_contiguous(memory_format=CL),
    "conv_1x1": conv(big_cl).is_contiguous(memory_format=CL),
    "clone": big_cl.clone().is_contiguous(memory_format=CL),
    "contiguous": big_cl.contiguous().is_contiguous(memory_format=CL),
}
print("does the result stay channels_last?")
for op, kept in keeps.items():
    print(f"  {op:<12} {kept}")
print()

# What does converting cost, next to copying the same bytes in the same order?
dst_cl = torch.empty_like(big, memory_format=CL)
dst = torch.empty_like(big)
cases = {
    "plain_copy": ("copy, same layout", lambda: dst.copy_(big)),
    "to_channels_last": ("NCHW -> channels_last", lambda: dst_cl.copy_(big)),
    "back_to_nchw": ("channels_last -> NCHW", lambda: dst.copy_(big_cl)),
}
timed = measure({k: (label, fn) for k, (label, fn) in cases.items()},
                samples=SAMPLES, target_ms=TARGET_MS)
ms = {k: tm.median_us / 1000.0 for k, tm in timed.items()}
nbytes = big.untyped_storage().nbytes()
print(f"converting {tuple(big.shape)} float32 ({nbytes:,} bytes),"
      f" {THREADS} thread, into buffers made once:")
print("  " + method_line(SAMPLES, TARGET_MS))
for k in cases:
    print(show(timed[k], unit="ms", width=24))
ratio = ms["to_channels_last"] / ms["plain_copy"]
low = timed["to_channels_last"].q1_us / timed["plain_copy"].q3_us
high = timed["to_channels_last"].q3_us / timed["plain_copy"].q1_us
print(f"  conversion / plain copy  {ratio:>8.1f}x  (quartiles allow {low:.1f} to {high:.1f})")

# When is a plain NCHW tensor also channels-last contiguous? Only where the two orders coincide.
one = torch.randn(4, 8, 1, 1)
both = {}
print()
print("an NCHW tensor made by randn: contiguous in which formats?")
print(f"  {'shape':<16} {'contiguous()':>13} {'channels_last':>14}")
for shape in ((4, 8, 1, 1), (2, 1, 4, 4), (2, 3, 4, 4), (2, 3, 1, 4)):
    x = torch.randn(*shape)
    both[f"c{shape[1]}_h{shape[2]}_w{shape[3]}"] = x.is_contiguous() and x.is_contiguous(memory_format=CL)
    print(f"  {str(shape):<16} {str(x.is_contiguous()):>13} {str(x.is_contiguous(memory_format=CL)):>14}")

print()
print("LAYOUT=" + json.dumps({
    "shape": list(small.shape),
    "nchw_stride": list(small.stride()), "cl_stride": list(small_cl.stride()),
    "nchw_stride_text": str(tuple(small.stride())),
    "cl_stride_text": str(tuple(small_cl.stride())),
    "nchw_order": storage_order(small), "cl_order": storage_order(small_cl),
    "nchw_is_contiguous": small.is_contiguous(),
    "nchw_is_cl": small.is_contiguous(memory_format=CL),
    "cl_is_contiguous": small_cl.is_contiguous(),
    "cl_is_cl": small_cl.is_contiguous(memory_format=CL),
    "ambiguous_both": one.is_contiguous() and one.is_contiguous(memory_format=CL),
}))
print("KEEPS=" + json.dumps(keeps))
print("BOTH=" + json.dumps(both))
print("CONVERT=" + json.dumps({"bytes": nbytes, "shape": list(big.shape),
                               "threads": THREADS, "ratio": ratio, "ratio_low": low,
                               "ratio_high": high, "samples": SAMPLES,
                               "spread": {k: tm.spread for k, tm in timed.items()}, **ms}))
