"""What the forward pass keeps for backward, in bytes

Counts every tensor a small MLP saves for backward through `torch.autograd.graph.saved_tensors_hooks`,
splitting what is a parameter (kept alive by the model anyway) from what is an activation (kept
alive only by the graph), at four batch sizes. Then shows which slot of `mul` stays empty when
only one input needs a gradient, and that ops save inputs or outputs as their formula needs.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

torch.manual_seed(0)
WIDTH = 256
model = torch.nn.Sequential(
    torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
    torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
    torch.nn.Linear(WIDTH, 10),
)
param_ptrs = {p.untyped_storage().data_ptr() for p in model.parameters()}
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())


def count_saved(batch):
    packs = []

    def pack(t):
        packs.append(t)
        return t

    x = torch.randn(batch, WIDTH)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(x).sum()
    distinct = {}
    for t in packs:
        key = t.untyped_storage().data_ptr()
        distinct[key] = t.untyped_storage().nbytes()
    act = sum(n for k, n in distinct.items() if k not in param_ptrs)
    par = sum(n for k, n in distinct.items() if k in param_ptrs)
    loss.backward()
    return {"batch": batch, "packs": len(packs), "distinct": len(distinct),
            "activation_bytes": act, "parameter_bytes": par}


rows = [count_saved(b) for b in (32, 64, 128, 256)]
print(f"MLP {WIDTH} -> {WIDTH} -> {WIDTH} -> 10 with ReLUs; parameters: {param_bytes:,} bytes")
print("what saved_tensors_hooks sees during one forward pass:")
print(f"  {'batch':>6} {'pack calls':>11} {'distinct':>9} {'activations':>14} {'parameters':>12}")
for r in rows:
    print(f"  {r['batch']:>6} {r['packs']:>11} {r['distinct']:>9} {r['activation_bytes']:>14,} {r['parameter_bytes']:>12,}")
print("activation bytes per batch row:", sorted({r["activation_bytes"] // r["batch"] for r in rows}))

# Which slot is filled depends on which inputs need a gradient.
a = torch.randn(3, requires_grad=True)
b = torch.randn(3)
both = a * a.detach().requires_grad_()
one = a * b
slots = {"both": {"self": both.grad_fn._saved_self is not None, "other": both.grad_fn._saved_other is not None},
         "a_only": {"self": one.grad_fn._saved_self is not None, "other": one.grad_fn._saved_other is not None}}
print("\nmul(a, b): which inputs are saved")
print(f"  both need a gradient:  self saved {slots['both']['self']}, other saved {slots['both']['other']}")
print(f"  only a needs one:      self saved {slots['a_only']['self']}, other saved {slots['a_only']['other']}")

# Inputs or outputs: each formula saves what it reads.
kinds = {}
for label, out in (("exp", a.exp()), ("sigmoid", a.sigmoid()), ("relu", a.relu()), ("sin", a.sin()),
                   ("tanh", a.tanh()), ("pow 2", a.pow(2))):
    kinds[label] = sorted(n[len("_raw_saved_"):] for n in dir(out.grad_fn) if n.startswith("_raw_saved_"))
print("\nwhat one-input ops save:")
for label, names in kinds.items():
    print(f"  {label:<8} {', '.join(names)}")

print("ROWS=" + json.dumps(rows))
print("MODEL=" + json.dumps({"param_bytes": param_bytes, "width": WIDTH}))
print("SLOTS=" + json.dumps(slots))
print("KINDS=" + json.dumps(kinds))
