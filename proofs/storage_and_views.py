"""A view is a new header over the same bytes

Makes twelve numbers `a`, views them as a 3 x 4 grid `m`, then applies a chain of view
operations to `m` (transpose, slices, a step, `view`, `unsqueeze`, indexing) and prints
each result's sizes, strides and storage offset, whether it reads `a`'s storage, and
which tensor it records as its `_base`. Then writes through a view and reads the change
back from the grid.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

a = torch.arange(12.0)
base = a.view(3, 4)
storage = a.untyped_storage()

print("a = torch.arange(12.0); m = a.view(3, 4)")
print(f"  a's storage: {storage.nbytes()} bytes, {a.numel()} elements of"
      f" {a.element_size()} bytes")
print()

chain = [  # (data key, expression, the view)
    ("m", "m", base),
    ("t", "m.t()", base.t()),
    ("rows", "m[1:]", base[1:]),
    ("cols", "m[:, 1:3]", base[:, 1:3]),
    ("step", "m[:, ::2]", base[:, ::2]),
    ("view", "m.view(2, 6)", base.view(2, 6)),
    ("unsqueeze", "m.unsqueeze(0)", base.unsqueeze(0)),
    ("index", "m[2]", base[2]),
    ("step_t", "m[1:, ::2].t()", base[1:, ::2].t()),
]

print(f"  {'expression':<19} {'size':<11} {'stride':<11} {'offset':>6}"
      f"  {'shares':<6} {'_base'}")
rows = {}
for key, expr, v in chain:
    shared = v.untyped_storage().data_ptr() == storage.data_ptr()
    has_base = v._base is a
    size = "(" + ", ".join(str(s) for s in v.shape) + ")"
    stride = "(" + ", ".join(str(s) for s in v.stride()) + ")"
    mark = "a" if has_base else ("m" if v._base is base else "-")
    print(f"  {expr:<19} {size:<11} {stride:<11} {v.storage_offset():>6}"
          f"  {str(shared):<6} {mark}")
    rows[key] = {"expr": expr, "size": list(v.shape), "stride": list(v.stride()),
                 "size_text": size, "stride_text": stride,
                 "offset": v.storage_offset(), "shares_storage": shared,
                 "base_is_a": has_base, "contiguous": v.is_contiguous()}
print()

# The address rule: element [i, j] lives at offset + i * stride[0] + j * stride[1].
v = base[1:, ::2]
i, j = 1, 1
index = v.storage_offset() + i * v.stride(0) + j * v.stride(1)
flat = a
print("the address rule, for v = m[1:, ::2] and element [1, 1]:")
print(f"  offset + i * stride[0] + j * stride[1] = {v.storage_offset()}"
      f" + {i} * {v.stride(0)} + {j} * {v.stride(1)} = {index}")
print(f"  v[1, 1] = {v[i, j].item():.0f}, and a[{index}] ="
      f" {flat[index].item():.0f}")
print()

# Writing through a view writes the shared bytes.
col = base[:, 1]
col.mul_(100)
print("col = m[:, 1]; col.mul_(100); then m is:")
for line in str(base).splitlines():
    print("  " + line)
print()

print("VIEWS=" + json.dumps(rows))
print("ALL=" + json.dumps({
    "share": all(r["shares_storage"] for r in rows.values()),
    "base_is_a": all(r["base_is_a"] for r in rows.values()),
    "count": len(rows),
}))
print("STORAGE=" + json.dumps({
    "nbytes": storage.nbytes(), "numel": a.numel(),
    "element_size": a.element_size(),
}))
print("ADDRESS=" + json.dumps({
    "offset": v.storage_offset(), "stride": list(v.stride()), "i": i, "j": j,
    "index": index, "value": v[i, j].item(), "storage_value": flat[index].item(),
}))
print("WRITE=" + json.dumps({
    "base_row0": base[0].tolist(), "changed_column": base[:, 1].tolist(),
    "grid_version": base._version, "a_version": a._version,
    "col_base_is_a": col._base is a,
}))

# Indexing with a list, a tensor or a mask is not a view: it gathers into new storage.
print()
gathered = a[[0, 2]]
masked = a[a > 5]
fancy = {"list_shares": gathered.untyped_storage().data_ptr() == a.untyped_storage().data_ptr(),
         "list_base_is_none": gathered._base is None,
         "mask_shares": masked.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()}
print(f"a[[0, 2]] shares a's storage: {fancy['list_shares']}; its _base is None: {fancy['list_base_is_none']}")
print(f"a[a > 5]  shares a's storage: {fancy['mask_shares']}")
# A dimension of size one is never stepped along, so its stride does not matter to contiguity.
odd = torch.empty_strided((3, 1), (1, 5))
fancy["size_one_stride"] = list(odd.stride())
fancy["size_one_contiguous"] = odd.is_contiguous()
print(f"empty_strided((3, 1), (1, 5)).is_contiguous(): {odd.is_contiguous()}")
print("INDEXING=" + json.dumps(fancy))

# The header has one more field: the layout. Everything on this page is strided; sparse
# tensors have another layout and no strides at all.
print(f"a.layout: {a.layout}; a.to_sparse().layout: {a.to_sparse().layout}")
# Saving a view writes the storage it reads, all of it: torch.save keeps views as views.
import io  # noqa: E402

big = torch.zeros(100_000)
view_file, clone_file = io.BytesIO(), io.BytesIO()
torch.save(big[:10], view_file)
torch.save(big[:10].clone(), clone_file)
saved = {"view_bytes": len(view_file.getvalue()), "clone_bytes": len(clone_file.getvalue()),
         "view_numel": 10, "storage_bytes": big.untyped_storage().nbytes(),
         "layout": str(a.layout), "sparse_layout": str(a.to_sparse().layout)}
print(f"big = zeros(100_000): torch.save(big[:10]) writes {saved['view_bytes']:,} bytes,"
      f" torch.save(big[:10].clone()) {saved['clone_bytes']:,}")
print("SAVED=" + json.dumps(saved))
