"""Writing in place into a view: CopySlices

Writes through a slice of a tensor that is part of a graph. Before the write the base's node is
`CloneBackward0` and the slice's is `SliceBackward0`; after it the base's node is `CopySlices`,
which wraps the in-place op's own backward, and the slice's is regenerated from the base. The
gradient that comes back is the right one. Then the two writes autograd refuses: into a leaf,
and into a view of a leaf.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x.clone()
v = y[1:3]
before = {"y": y.grad_fn.name(), "v": v.grad_fn.name(), "y_version": y._version, "v_version": v._version}
v.mul_(10)
node = y.grad_fn
after = {"y": type(node).__name__, "y_name": node.name(), "v": v.grad_fn.name(),
         "y_version": y._version, "v_version": v._version,
         "next": [n.name() if n is not None else None for n, _ in node.next_functions]}
print("x = [1, 2, 3, 4] (requires grad); y = x.clone(); v = y[1:3]")
print(f"  before v.mul_(10): y.grad_fn = {before['y']}, v.grad_fn = {before['v']}, versions {before['y_version']}, {before['v_version']}")
print(f"  after  v.mul_(10): y.grad_fn = {after['y']} ({after['y_name']}), v.grad_fn = {after['v']}, versions {after['y_version']}, {after['v_version']}")
print(f"  CopySlices' next functions: {after['next']}")
print("  y =", y.tolist())
y.sum().backward()
grad = x.grad.tolist()
print("  y.sum().backward(): x.grad =", grad, "(10 where the slice was scaled, 1 elsewhere)")

refusals = {}
leaf = torch.ones(3, requires_grad=True)
for key, label, write in (("leaf", "leaf.mul_(2)", lambda: leaf.mul_(2)),
                          ("leaf_view", "leaf[0].mul_(2)", lambda: leaf[0].mul_(2))):
    try:
        write()
        refusals[key] = None
    except RuntimeError as e:
        refusals[key] = str(e)
    print(("\nwrites autograd refuses:" if key == "leaf" else "") + f"\n  {label}: {refusals[key]}", end="")
print()
with torch.no_grad():
    leaf.mul_(2)
print("  under torch.no_grad(), leaf.mul_(2) is allowed: leaf =", leaf.tolist(), "version", leaf._version)

print("COPY=" + json.dumps({"before": before, "after": after, "grad": grad}))
print("REFUSALS=" + json.dumps(refusals))
print("NOGRAD_WRITE=" + json.dumps({"values": leaf.tolist(), "version": leaf._version}))
