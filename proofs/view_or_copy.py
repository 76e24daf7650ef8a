"""`view` refuses what `reshape` quietly copies

Applies `view`, `reshape`, `flatten`, `contiguous` and `clone` to a contiguous 4 x 6
tensor and to its transpose, and records for each whether it succeeds, whether the
result shares the input's storage, and how many bytes of new storage it allocated.
Also records the message `view` raises, and one `view` on the transpose that works
because it only splits a dimension.
"""

import json
import textwrap

import torch

PROOF = {"timeout": 60, "parallel": True}

c = torch.arange(24.0).reshape(4, 6)
inputs = {"contiguous": c, "transposed": c.t()}

ops = [  # (data key, label, op)
    ("view", "view(-1)", lambda x: x.view(-1)),
    ("reshape", "reshape(-1)", lambda x: x.reshape(-1)),
    ("flatten", "flatten()", lambda x: x.flatten()),
    ("contiguous", "contiguous()", lambda x: x.contiguous()),
    ("clone", "clone()", lambda x: x.clone()),
]


def apply(fn, x):
    """Run one op; report success, sharing and bytes of fresh storage."""
    try:
        y = fn(x)
    except RuntimeError as err:
        return {"ok": False, "shares": None, "new_bytes": 0, "error": str(err)}
    shares = y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    new = 0 if shares else y.untyped_storage().nbytes()
    return {"ok": True, "shares": shares, "new_bytes": new, "error": None,
            "stride": list(y.stride()), "stride_text": str(tuple(y.stride()))}


results = {}
message = None
for label, x in inputs.items():
    results[label] = {}
    for key, _, fn in ops:
        r = apply(fn, x)
        results[label][key] = r
        if r["error"] and message is None:
            message = r["error"]

for label, x in inputs.items():
    stride = tuple(x.stride())
    print(f"{label} input: size {tuple(x.shape)}, stride {stride},"
          f" is_contiguous() {x.is_contiguous()}")
    print(f"  {'op':<14} {'result':<7} {'storage':<8} {'new bytes':>9}"
          f"  {'stride'}")
    for key, name, _ in ops:
        r = results[label][key]
        if not r["ok"]:
            print(f"  {name:<14} {'error':<7} {'-':<8} {0:>9}  -")
            continue
        where = "shared" if r["shares"] else "new"
        print(f"  {name:<14} {'ok':<7} {where:<8} {r['new_bytes']:>9}"
              f"  {tuple(r['stride'])}")
    print()

print("the transposed view(-1) raised RuntimeError:")
for line in textwrap.wrap(f'"{message}"', 64):
    print("  " + line)
print()

# A view can split a dimension even when the tensor is not contiguous: splitting
# keeps each new dimension evenly spaced in memory. Merging two dims cannot.
t = c.t()
split = t.view(3, 2, 4)
split_shares = split.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
print(f"t = c.t(): size {tuple(t.shape)}, stride {tuple(t.stride())}")
print(f"  t.view(3, 2, 4) works: stride {tuple(split.stride())},"
      f" shares storage {split_shares}")
print()

print("CASES=" + json.dumps(results))
print("VIEW_ERROR=" + json.dumps({"message": message,
                                  "mentions_reshape": "reshape" in (message or "")}))
print("SPLIT=" + json.dumps({"input_stride": list(t.stride()),
                             "stride": list(split.stride()),
                             "stride_text": str(tuple(split.stride())),
                             "shares": split_shares}))
print("INPUT=" + json.dumps({"bytes": c.untyped_storage().nbytes(),
                             "stride_text": str(tuple(c.stride())),
                             "t_stride_text": str(tuple(t.stride())),
                             "t_contiguous": t.is_contiguous()}))
