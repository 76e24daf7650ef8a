"""The graph the forward pass records

Runs a two-layer model forward once and walks what autograd wrote down along the way:
starting at loss.grad_fn, it follows next_functions to every backward node, listing
the tensors each node saved for later. Then it calls backward() and shows the .grad
fields that the walk back filled in.
"""

import json
from collections import deque

import torch

PROOF = {"timeout": 60, "parallel": True}


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.fc2 = torch.nn.Linear(3, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def node_name(fn):
    # AccumulateGrad and CopySlices report a C++ qualified name; the class name is shorter.
    return type(fn).__name__


def saved_tensors_of(fn):
    """The `_saved_*` slots of a node that hold tensors (or a tensor slot left empty)."""
    found = []
    for attr in sorted(dir(fn)):
        if not attr.startswith("_saved_"):
            continue
        short = attr[len("_saved_"):]
        value = getattr(fn, attr)
        if isinstance(value, torch.Tensor):
            found.append({"name": short, "shape": list(value.shape),
                          "dtype": str(value.dtype).replace("torch.", ""), "empty": False,
                          # which bytes, read how: two slots with the same key hold one tensor
                          "key": [value.untyped_storage().data_ptr(), value.storage_offset(),
                                  list(value.shape), list(value.stride())]})
        elif value is None and hasattr(fn, "_raw_saved_" + short):
            # A tensor slot that this forward did not need to fill.
            found.append({"name": short, "shape": None, "dtype": None, "empty": True})
    return found


torch.manual_seed(0)
model = TinyNet()
x = torch.randn(2, 4)
loss = model(x).sum()
param_names = {id(p): name for name, p in model.named_parameters()}

# Breadth-first walk from the loss, giving every distinct node one id.
ids = {loss.grad_fn: 0}
order = [loss.grad_fn]
queue = deque([loss.grad_fn])
while queue:
    fn = queue.popleft()
    for nxt, _ in fn.next_functions:
        if nxt is not None and nxt not in ids:
            ids[nxt] = len(order)
            order.append(nxt)
            queue.append(nxt)

nodes = []
for fn in order:
    variable = None
    if hasattr(fn, "variable"):
        var = fn.variable
        variable = {"name": param_names.get(id(var), "input"), "shape": list(var.shape)}
    nodes.append({
        "id": ids[fn],
        "name": node_name(fn),
        "next": [ids[n] for n, _ in fn.next_functions if n is not None],
        "saved": saved_tensors_of(fn),
        "variable": variable,
    })

print("Model: x[2, 4] -> fc1 (Linear 4->3) -> relu -> fc2 (Linear 3->1) -> sum")
print(f"loss = {loss.item():.4f}, loss.grad_fn = {node_name(loss.grad_fn)}")
print()
print("The recorded graph, walked breadth-first from the loss:")
width = max(len(n["name"]) for n in nodes)
pad = " " * 8
for n in nodes:
    arrow = ", ".join(f"#{i}" for i in n["next"]) or "(leaf)"
    print(f"  #{n['id']:<2} {n['name']:<{width}} -> {arrow}")
    for s in n["saved"]:
        if s["empty"]:
            print(f"{pad}saved {s['name']:<6} (empty: not needed here)")
        else:
            shape = "[" + ", ".join(str(d) for d in s["shape"]) + "]"
            print(f"{pad}saved {s['name']:<6} {s['dtype']} {shape}")
    if n["variable"]:
        print(f"{pad}adds into {n['variable']['name']}.grad")
print()

filled = [(n["id"], s) for n in nodes for s in n["saved"] if not s["empty"]]
saved_count = len(filled)
groups = {}
for node_id, s in filled:
    groups.setdefault(json.dumps(s["key"]), []).append(f"#{node_id} {s['name']}")
print(f"{len(nodes)} nodes, {saved_count} filled saved-tensor slots holding {len(groups)} distinct tensors")
for slots in groups.values():
    if len(slots) > 1:
        print(f"  one tensor in several slots: {', '.join(slots)}")
for _, s in filled:  # addresses differ from run to run: drop them from the record
    del s["key"]
print()

before = {name: p.grad is None for name, p in model.named_parameters()}
loss.backward()
print("backward() walks the same graph and fills .grad:")
print(f"  {'parameter':<11} {'shape':<6} {'before':<7} {'after'}")
grads = []
for name, p in model.named_parameters():
    shape = "x".join(str(d) for d in p.shape)
    norm = p.grad.norm().item()
    print(f"  {name:<11} {shape:<6} {'None' if before[name] else 'set':<7} "
          f"a {shape} tensor, norm {norm:.4f}")
    grads.append({"name": name, "shape": list(p.shape), "before": None if before[name] else "set",
                  "norm": norm})

print()
print("GRAPH=" + json.dumps({"root": 0, "nodes": nodes}))
print("LOSS=" + json.dumps({"grad_fn": node_name(loss.grad_fn), "value": loss.item()}))
print("GRADS=" + json.dumps(grads))
print("COUNTS=" + json.dumps({"nodes": len(nodes), "saved": saved_count, "distinct_saved": len(groups)}))
