"""What 16-bit training saves, and what autocast keeps in float32

Trains one step of the same two-layer model three ways on the CPU: in float32, under
`torch.autocast("cpu", dtype=torch.bfloat16)`, and converted whole with `.to(torch.bfloat16)`.
For each it counts the bytes of the parameters, their gradients, Adam's state, and what
autograd saves for backward (through `torch.autograd.graph.saved_tensors_hooks`), split into
the parameters themselves, 16-bit copies of the weights, and activations.
"""

import json

import torch

PROOF = {"timeout": 120, "parallel": True}

IN, HIDDEN, OUT, BATCH = 512, 1024, 256, 64


def nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def one_step(mode):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, OUT))
    if mode == "bfloat16 model":
        model = model.to(torch.bfloat16)
    params = list(model.parameters())
    weights = [model[0].weight, model[2].weight]
    weight_shapes = {tuple(w.shape) for w in weights} | {tuple(w.t().shape) for w in weights}
    param_storages = {p.untyped_storage().data_ptr() for p in params}
    opt = torch.optim.Adam(params, lr=1e-3)
    x = torch.randn(BATCH, IN, dtype=params[0].dtype)

    # Every tensor autograd saves passes through pack; storages are counted once each.
    seen = {}

    def pack(t):
        seen.setdefault(t.untyped_storage().data_ptr(), t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if mode == "autocast":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x)
        else:
            out = model(x)
    saved = {"parameters": {"bytes": 0, "dtypes": set()}, "weight_copies": {"bytes": 0, "dtypes": set()},
             "activations": {"bytes": 0, "dtypes": set()}}
    for ptr, t in seen.items():
        if ptr in param_storages:
            kind = "parameters"
        elif tuple(t.shape) in weight_shapes:
            kind = "weight_copies"
        else:
            kind = "activations"
        saved[kind]["bytes"] += t.untyped_storage().nbytes()
        saved[kind]["dtypes"].add(str(t.dtype).replace("torch.", ""))
    out.float().sum().backward()
    opt.step()
    state = [opt.state[p] for p in params]
    row = {
        "param_bytes": nbytes(params),
        "param_dtype": str(params[0].dtype).replace("torch.", ""),
        "grad_bytes": nbytes(p.grad for p in params),
        "grad_dtype": str(params[0].grad.dtype).replace("torch.", ""),
        "adam_keys": sorted(k for k in state[0] if torch.is_tensor(state[0][k]) and state[0][k].dim() > 0),
        "adam_bytes": nbytes(s[k] for s in state for k in ("exp_avg", "exp_avg_sq")),
        "adam_same_shape_dtype": all(s[k].shape == p.shape and s[k].dtype == p.dtype
                                     for s, p in zip(state, params) for k in ("exp_avg", "exp_avg_sq")),
        "output_dtype": str(out.dtype).replace("torch.", ""),
        "saved": {k: {"bytes": v["bytes"], "dtypes": sorted(v["dtypes"])} for k, v in saved.items()},
    }
    row["state_bytes"] = row["param_bytes"] + row["grad_bytes"] + row["adam_bytes"]
    return row


MODES = ("float32", "autocast", "bfloat16 model")
rows = {m: one_step(m) for m in MODES}
key = {"float32": "float32", "autocast": "autocast", "bfloat16 model": "bf16_model"}

print(f"Linear({IN}, {HIDDEN}) -> ReLU -> Linear({HIDDEN}, {OUT}), batch {BATCH}, one Adam step; bytes")
print(f"  {'':<26}{'float32':>12}{'autocast':>12}{'.to(bf16)':>12}")
lines = (
    ("parameters", lambda r: r["param_bytes"]),
    ("gradients", lambda r: r["grad_bytes"]),
    ("Adam exp_avg + exp_avg_sq", lambda r: r["adam_bytes"]),
    ("saved: the parameters", lambda r: r["saved"]["parameters"]["bytes"]),
    ("saved: 16-bit weight copies", lambda r: r["saved"]["weight_copies"]["bytes"]),
    ("saved: activations", lambda r: r["saved"]["activations"]["bytes"]),
)
for label, get in lines:
    print(f"  {label:<26}" + "".join(f"{get(rows[m]):>12,}" for m in MODES))
print("dtypes")
for label, get in (("parameters", lambda r: r["param_dtype"]), ("gradients", lambda r: r["grad_dtype"]),
                   ("model output", lambda r: r["output_dtype"]),
                   ("saved activations", lambda r: "/".join(r["saved"]["activations"]["dtypes"]))):
    print(f"  {label:<26}" + "".join(f"{get(rows[m]):>12}" for m in MODES))
print("Adam's state per parameter:", ", ".join(rows["float32"]["adam_keys"]),
      "(same shape and dtype as the parameter:", str(all(r["adam_same_shape_dtype"] for r in rows.values())) + ")")
print("parameters saved by reference are not new bytes; their storage is the parameter's own")

print("MODES=" + json.dumps({key[m]: r for m, r in rows.items()}))
