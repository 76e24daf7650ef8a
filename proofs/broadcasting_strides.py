"""Broadcasting is a stride of zero, until the result is written

Expands a 3 x 1 column and a 1 x 4 row to 3 x 4 and prints their strides and the
storage behind them: the expanded dimension gets stride 0 and no byte is added. Then
adds them, and shows that the result allocates every element; expands one number to
a million, and shows that an in-place write into an expanded tensor is refused.
"""

import json
import textwrap

import torch

PROOF = {"timeout": 60, "parallel": True}

col = torch.tensor([[1.0], [2.0], [3.0]])        # 3 x 1
row = torch.tensor([[10.0, 20.0, 30.0, 40.0]])   # 1 x 4


def refusal(action):
    """The message of the RuntimeError that `action` raises, or None if it runs."""
    try:
        action()
    except RuntimeError as err:
        return str(err)
    return None


def quote(label, message):
    print(label)
    for line in textwrap.wrap(f'"{message}"', 64):
        print("  " + line)


def describe(label, x):
    size = "(" + ", ".join(str(s) for s in x.shape) + ")"
    stride = "(" + ", ".join(str(s) for s in x.stride()) + ")"
    nbytes = x.untyped_storage().nbytes()
    print(f"  {label:<18} size {size:<8} stride {stride:<8}"
          f" storage {nbytes:>3} bytes")
    return {"size": list(x.shape), "stride": list(x.stride()), "bytes": nbytes,
            "stride_text": stride}


print("two small tensors, then the same tensors expanded to 3 x 4:")
data = {
    "col": describe("col", col),
    "row": describe("row", row),
}
ce, re_ = torch.broadcast_tensors(col, row)
data["col_expanded"] = describe("col.expand(3, 4)", ce)
data["row_expanded"] = describe("row.expand(3, 4)", re_)
data["col_expanded"]["shares"] = ce.data_ptr() == col.data_ptr()
data["row_expanded"]["shares"] = re_.data_ptr() == row.data_ptr()
total = col + row
data["sum"] = describe("col + row", total)
data["sum"]["numel"] = total.numel()
print()
print("col + row =")
for line in str(total).splitlines():
    print("  " + line)
print()

# The rule: align shapes from the right; sizes must match or one of them be 1.
a, b = torch.empty(8, 1, 6, 1), torch.empty(7, 1, 5)
shape = torch.broadcast_shapes(a.shape, b.shape)
print(f"shapes {tuple(a.shape)} and {tuple(b.shape)} broadcast to {tuple(shape)}")
mismatch = refusal(lambda: torch.empty(3, 4) + torch.empty(3))
quote("(3, 4) + (3,) raises:", mismatch)
print()

one = torch.tensor(7.0)
big = one.expand(1000, 1000)
logical = big.numel() * big.element_size()
stored = big.untyped_storage().nbytes()
print(f"torch.tensor(7.0).expand(1000, 1000): {big.numel():,} elements")
print(f"  stride {tuple(big.stride())}, storage {stored} bytes"
      f" (a real copy would be {logical:,})")
write_error = refusal(lambda: ce.add_(1))
quote("col.expand(3, 4).add_(1) raises:", write_error)


# In place, only the other operand may broadcast: the tensor written into keeps its shape.
small_target = torch.zeros(3, 1)
inplace_error = refusal(lambda: small_target.add_(torch.ones(3, 4)))
quote("zeros(3, 1).add_(ones(3, 4)) raises:", inplace_error)
grown = torch.zeros(3, 4).add_(torch.ones(3, 1))
print(f"zeros(3, 4).add_(ones(3, 1)) works: shape {tuple(grown.shape)}")
# expand reads the same bytes again; repeat copies them out.
rep = col.repeat(1, 4)
print(f"col.expand(3, 4): {ce.untyped_storage().nbytes()} bytes of storage;"
      f" col.repeat(1, 4): {rep.untyped_storage().nbytes()} bytes")

print()
print("INPLACE=" + json.dumps({"target_grows_refused": inplace_error is not None,
                              "message": inplace_error, "other_broadcasts": list(grown.shape)}))
print("REPEAT=" + json.dumps({"expand_bytes": ce.untyped_storage().nbytes(),
                             "repeat_bytes": rep.untyped_storage().nbytes(),
                             "repeat_shares": rep.untyped_storage().data_ptr() == col.untyped_storage().data_ptr()}))
print("EXPAND=" + json.dumps(data))
print("RULE=" + json.dumps({"a": str(tuple(a.shape)), "b": str(tuple(b.shape)),
                           "result": str(tuple(shape)), "mismatch": mismatch}))
print("SCALAR=" + json.dumps({"numel": big.numel(),
                             "stride_text": str(tuple(big.stride())),
                             "stored_bytes": stored, "logical_bytes": logical,
                             "ratio": logical / stored}))
print("WRITE=" + json.dumps({"refused": write_error is not None,
                            "message": write_error}))
