"""What a backward graph is made of

Builds a small network out of four explicit ops (mm, relu, mul, sum) and walks the graph it
records: each node's class name, its sequence number, the edges in `next_functions` with the
input number each one feeds, the tensors it saved (or the slots it left empty), and the
`AccumulateGrad` nodes at the leaves. Then it lists the node that a dozen common calls record,
and shows that the gradient of a broadcast input comes back in the input's own shape: the
engine sums it down to the shape that the receiving node recorded.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

torch.manual_seed(0)
x = torch.randn(2, 4)                        # data: needs no gradient
W = torch.randn(4, 3, requires_grad=True)    # a weight
v = torch.randn(3, requires_grad=True)       # a per-feature scale, broadcast over the batch
h = x.mm(W)
r = h.relu()
o = r * v
loss = o.sum()

names = {id(W): "W", id(v): "v"}


def saved_slots(fn):
    """The node's saved-tensor slots: name, shape, or empty when this forward did not fill it."""
    slots = []
    for attr in sorted(dir(fn)):
        if not attr.startswith("_raw_saved_"):
            continue
        short = attr[len("_raw_saved_"):]
        value = getattr(fn, "_saved_" + short)
        if isinstance(value, torch.Tensor):
            slots.append({"slot": short, "shape": list(value.shape), "empty": False})
        else:
            slots.append({"slot": short, "shape": None, "empty": True})
    return slots


# Walk from the loss, depth first, giving each node an id the first time it is seen.
ids, order, stack = {}, [], [loss.grad_fn]
while stack:
    fn = stack.pop()
    if fn in ids:
        continue
    ids[fn] = len(order)
    order.append(fn)
    for nxt, _ in reversed(fn.next_functions):
        if nxt is not None and nxt not in ids:
            stack.append(nxt)

nodes = []
for fn in order:
    edges = [{"to": ids[n], "input_nr": k} if n is not None else None for n, k in fn.next_functions]
    node = {"id": ids[fn], "name": fn.name() if not hasattr(fn, "variable") else "AccumulateGrad",
            "class": type(fn).__name__, "is_node": isinstance(fn, torch.autograd.graph.Node),
            "seq": fn._sequence_nr(), "edges": edges, "saved": saved_slots(fn)}
    if hasattr(fn, "variable"):
        node["leaf"] = names.get(id(fn.variable), "?")
    nodes.append(node)

print("forward: h = x.mm(W); r = h.relu(); o = r * v; loss = o.sum()")
print("x needs no gradient; W [4, 3] and v [3] do\n")
print(f"  {'id':<3} {'node':<15} {'seq':>4}  edges (to node : input nr)   saved slots")
for n in nodes:
    edges = ", ".join("none" if e is None else f"#{e['to']}:{e['input_nr']}" for e in n["edges"]) or "-"
    saved = ", ".join(f"{s['slot']}=empty" if s["empty"] else f"{s['slot']}{s['shape']}" for s in n["saved"])
    leaf = f"  -> {n['leaf']}.grad" if "leaf" in n else ""
    seq = "max" if n["seq"] == 2 ** 64 - 1 else n["seq"]
    print(f"  #{n['id']:<2} {n['name']:<15} {seq:>4}  {edges:<26} {saved or '-'}{leaf}")
print()
print("AccumulateGrad's sequence number is the largest a uint64 holds:",
      nodes[-1]["seq"] == 2 ** 64 - 1)
print("every node is a torch.autograd.graph.Node:", all(n["is_node"] for n in nodes))

# The node each call records. The number after Backward tells overloads apart.
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(4, 3, requires_grad=True)
catalog = {
    "mm": ("a.mm(b)", lambda: a.mm(b)), "matmul": ("a @ b", lambda: a @ b),
    "relu": ("torch.relu(a)", lambda: torch.relu(a)), "mul": ("a * a", lambda: a * a),
    "mul_number": ("a * 2", lambda: a * 2), "add": ("a + a", lambda: a + a),
    "add_number": ("a + 1", lambda: a + 1), "sum": ("a.sum()", lambda: a.sum()),
    "sum_dim": ("a.sum(dim=0)", lambda: a.sum(dim=0)), "t": ("a.t()", lambda: a.t()),
    "view": ("a.view(12)", lambda: a.view(12)), "exp": ("a.exp()", lambda: a.exp()),
    "clone": ("a.clone()", lambda: a.clone()),
    "linear": ("torch.nn.functional.linear(a, b.t())", lambda: torch.nn.functional.linear(a, b.t())),
}
print("\nthe node each call records:")
recorded = {}
for key, (call, make) in catalog.items():
    recorded[key] = {"call": call, "node": make().grad_fn.name()}
    print(f"  {call:<38} {recorded[key]['node']}")

# What each node recorded about the gradients it will receive (one entry per output of its op).
mul_node = loss.grad_fn.next_functions[0][0]
v_acc = mul_node.next_functions[1][0]
mul_expects = list(mul_node._input_metadata[0].shape)
acc_expects = list(v_acc._input_metadata[0].shape)
# An input that cannot have a gradient (an integer index) gets no entry in next_functions at all.
picked = a.index_select(0, torch.tensor([0, 2]))
index_edges = len(picked.grad_fn.next_functions)
print("\na.index_select(0, index): next_functions has", index_edges,
      "entry: one for a, none for the integer index")

loss.backward()
print("\nbroadcasting undone: v has shape", list(v.shape), "and o = r * v has shape", list(o.shape))
print("  v.grad has shape", list(v.grad.shape), "= the [2, 3] gradient summed over the batch:",
      torch.allclose(v.grad, r.detach().sum(0)))
print("  shape each node recorded for the gradient it receives: MulBackward0", mul_expects,
      "| v's AccumulateGrad", acc_expects)

print("GRAPH=" + json.dumps({"nodes": nodes}))
print("CATALOG=" + json.dumps(recorded))
print("INDEX=" + json.dumps({"edges": index_edges}))
print("BROADCAST=" + json.dumps({"v_shape": list(v.shape), "o_shape": list(o.shape),
                                 "grad_shape": list(v.grad.shape),
                                 "mul_expects": mul_expects, "accumulate_expects": acc_expects,
                                 "summed": bool(torch.allclose(v.grad, r.detach().sum(0)))}))
