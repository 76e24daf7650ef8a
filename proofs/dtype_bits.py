"""float16 and bfloat16 spend the same 16 bits differently

Reads the raw bits of a few numbers (1.0, 0.1, -2.5, 65504, 70000, 1e-8) stored as
float32, float16 and bfloat16, splits them into sign, exponent and mantissa, and
prints the value each format actually keeps. Then lists `torch.finfo` (eps, largest,
smallest normal) for the three formats, and the element size of common dtypes.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

# (dtype, integer dtype of the same width, exponent bits, mantissa bits)
FORMATS = {
    "float32": (torch.float32, torch.int32, 8, 23),
    "float16": (torch.float16, torch.int16, 5, 10),
    "bfloat16": (torch.bfloat16, torch.int16, 8, 7),
}
VALUES = {"one": 1.0, "tenth": 0.1, "minus_2_5": -2.5, "f16_max": 65504.0,
          "seventy_k": 70000.0, "tiny": 1e-8}  # data key: value


def bits_of(value, dtype, int_dtype):
    """The stored bit pattern, as a string of 0s and 1s, and the kept value."""
    x = torch.tensor([value], dtype=dtype)
    raw = x.view(int_dtype).item()
    width = 8 * x.element_size()
    pattern = format(raw & ((1 << width) - 1), f"0{width}b")
    return pattern, x.item()


print("bit fields: sign | exponent | mantissa")
for name, (_, _, e, m) in FORMATS.items():
    print(f"  {name:<9} 1 | {e:>2} | {m:>2}   = {1 + e + m} bits")
print()

values = {}
for key, v in VALUES.items():
    values[key] = {"value": v}
    print(f"{v!r}")
    for name, (dt, it, e, m) in FORMATS.items():
        pattern, kept = bits_of(v, dt, it)
        s, ex, ma = pattern[0], pattern[1:1 + e], pattern[1 + e:]
        shown = ma if len(ma) <= 10 else ma[:10] + "..."
        print(f"  {name:<9} {s} {ex:<8} {shown:<13} keeps {kept:.10g}")
        inf = kept in (float("inf"), float("-inf"))
        values[key][name] = {"sign": s, "exponent": ex, "mantissa": ma,
                             "kept": None if inf else kept, "is_inf": inf,
                             "error": None if inf else abs(kept - v) / abs(v)}
    print()

finfo = {}
print(f"  {'torch.finfo':<9} {'eps':>11} {'max':>11} {'tiny':>11}")
for name, (dt, _, _, _) in FORMATS.items():
    fi = torch.finfo(dt)
    finfo[name] = {"eps": fi.eps, "max": fi.max, "tiny": fi.tiny, "bits": fi.bits}
    print(f"  {name:<9} {fi.eps:>11.3g} {fi.max:>11.3g} {fi.tiny:>11.3g}")
print()

sizes = {}
dtypes = ["float64", "float32", "float16", "bfloat16", "int64", "int32",
          "int16", "int8", "uint8", "bool", "complex64"]
print("bytes per element:")
line = " "
for name in dtypes:
    sizes[name] = torch.empty(0, dtype=getattr(torch, name)).element_size()
    item = f" {name} {sizes[name]}"
    if len(line) + len(item) + 1 > 66:
        print(line)
        line = " "
    line += item + ","
print(line.rstrip(","))
mb = {n: 1024 * 1024 * sizes[n] for n in ("float32", "bfloat16")}
print(f"a 1024 x 1024 tensor: {mb['float32']:,} bytes in float32,"
      f" {mb['bfloat16']:,} in bfloat16")


# float16's largest finite value is 65,504; conversion rounds to nearest, so values up to the
# midpoint with the next step (65,520) still round down to it, and only from there on is it inf.
print()
edge = {}
print("float32 value -> float16 keeps:")
for key, v in (("v65504", 65504.0), ("v65519", 65519.0), ("v65519_99", 65519.99),
               ("v65520", 65520.0)):
    kept = torch.tensor(v, dtype=torch.float32).to(torch.float16).item()
    edge[key] = {"input": torch.tensor(v).item(), "is_inf": kept == float("inf"),
                 "kept": None if kept == float("inf") else kept}
    print(f"  {torch.tensor(v).item():>10.2f} -> {kept}")
near_one = torch.tensor([1.0, 1.01, 1.02]).to(torch.bfloat16).float().tolist()
print(f"bfloat16 keeps 1.00, 1.01, 1.02 as {near_one[0]}, {near_one[1]}, {near_one[2]}")

print()
print("EDGE=" + json.dumps(edge))
print("NEAR_ONE=" + json.dumps(near_one))
print("FIELDS=" + json.dumps({n: {"exponent": e, "mantissa": m}
                             for n, (_, _, e, m) in FORMATS.items()}))
print("VALUES=" + json.dumps(values))
print("FINFO=" + json.dumps(finfo))
print("SIZES=" + json.dumps(sizes))
print("MEGA=" + json.dumps(mb))
