"""Which storage cells does each view read?

Starts from one contiguous tensor, `x = torch.arange(12).reshape(3, 4)`, and applies a dozen
view operations to it. For each one it records the sizes, strides and storage offset PyTorch
gave the result, whether the result still shares x's storage, and the storage cells its elements
read, computed as `offset + sum(index * stride)`. Because arange makes every value equal to its
storage index, the values the view holds check each computed cell. One operation on the list
(flatten of a transpose) cannot be a view: it copies, and the proof says so.
"""

import itertools
import json

import torch

PROOF = {"timeout": 60, "parallel": True}

x = torch.arange(12).reshape(3, 4)

# The source text of each operation on x, evaluated as written.
OPS = [
    "x",
    "x.t()",
    "x[:, ::2]",
    "x[1:]",
    "x[:, 1]",
    "x.narrow(1, 1, 2)",
    "x[0].expand(3, 4)",
    "x.unsqueeze(1)",
    "x.view(4, 3)",
    "x.view(3, 2, 2).transpose(1, 2)",
    "x.view(3, 2, 2).permute(2, 0, 1)",
    "x.diagonal()",
    "x.as_strided((2, 2), (4, 1), 5)",
    "x.flatten().unfold(0, 4, 2)",
    "x.t().flatten()",
]


def own_cells(v):
    """Storage index of every element of v, in v's row-major order: offset + sum(i_k * stride_k)."""
    offset, strides = v.storage_offset(), v.stride()
    return [offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*(range(n) for n in v.shape))]


def shares_storage(v, base):
    """Same untyped storage, and v's first element lies inside it."""
    start = base.untyped_storage().data_ptr()
    end = start + base.untyped_storage().nbytes()
    return v.untyped_storage().data_ptr() == start and start <= v.data_ptr() < end


def record(src):
    v = eval(src, {"torch": torch}, {"x": x})
    reads = own_cells(v)
    values = [int(v[index]) for index in itertools.product(*(range(n) for n in v.shape))]
    # the cells computed from the strides hold exactly the values the view shows
    storage = torch.empty(0, dtype=v.dtype).set_(v.untyped_storage())
    assert storage[reads].tolist() == values, src
    shared = shares_storage(v, x)
    if shared:
        assert reads == values, src  # arange: value == storage index in x's storage
    return {
        "op": src, "sizes": list(v.shape), "strides": list(v.stride()),
        "storage_offset": v.storage_offset(), "shares_storage": shared,
        "is_contiguous": v.is_contiguous(), "numel": v.numel(),
        "reads": reads, "values": values,
    }


views = [record(src) for src in OPS]


def dims(seq):
    return "×".join(str(n) for n in seq) or "scalar"


def tup(seq):
    return "(" + ", ".join(str(n) for n in seq) + ("," if len(seq) == 1 else "") + ")"


print(f"torch {torch.__version__}; x = torch.arange(12).reshape(3, 4)")
print(f"x: sizes {tup(x.shape)}, strides {tup(x.stride())}, {x.numel()} cells of {x.dtype}")
print()
print(f"{'operation':<33}{'sizes':<6}{'strides':<10}{'off':>3}  result")
for v in views:
    kind = "view" if v["shares_storage"] else "COPY"
    if v["is_contiguous"]:
        kind += ", contiguous"
    print(f"{v['op']:<33}{dims(v['sizes']):<6}{tup(v['strides']):<10}{v['storage_offset']:>3}  {kind}")
print()
shared = sum(v["shares_storage"] for v in views)
print(f"{shared} of {len(views)} share x's storage; each cell read checked against its value")

print("BASE=" + json.dumps({"sizes": list(x.shape), "strides": list(x.stride()), "numel": x.numel(),
                            "dtype": str(x.dtype).replace("torch.", ""), "source": "torch.arange(12).reshape(3, 4)"}))
print("VIEWS=" + json.dumps(views))
