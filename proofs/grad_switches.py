"""The switches that stop recording, and what each one really changes

Runs one op on a tensor that requires a gradient under `no_grad`, `set_grad_enabled(False)`,
`inference_mode`, and `enable_grad` nested in `no_grad` and in `inference_mode`, and records what
comes out: whether it requires grad, whether it is an inference tensor, its dispatch keys, and
which kernels ran (a small operator with its own autograd kernel tells). Then the rules inference tensors live by,
and `detach()` against `requires_grad_(False)`.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

ran = []
lib = torch.library.Library("ldr_switches", "DEF")
lib.define("echo(Tensor x) -> Tensor")


def echo_cpu(t):
    ran.append("CPU")
    return t.clone()


def echo_autograd(t):
    ran.append("AutogradCPU")
    with torch._C._AutoDispatchBelowAutograd():
        return torch.ops.ldr_switches.echo(t)


lib.impl("echo", echo_cpu, "CPU")
lib.impl("echo", echo_autograd, "AutogradCPU")

w = torch.randn(3, requires_grad=True)
plain = torch.randn(3)


def tls():
    """What the thread's own key sets say: autograd excluded? ADInplaceOrView forced in?"""
    key = torch._C.DispatchKey
    return {"autograd_excluded": torch._C._dispatch_tls_local_exclude_set().has(key.AutogradFunctionality),
            "inplace_or_view_included": torch._C._dispatch_tls_local_include_set().has(key.ADInplaceOrView)}


MODES = {
    "grad_on": ("grad on (default)", lambda: torch.enable_grad()),
    "no_grad": ("no_grad()", lambda: torch.no_grad()),
    "set_grad_enabled_false": ("set_grad_enabled(False)", lambda: torch.set_grad_enabled(False)),
    "inference_mode": ("inference_mode()", lambda: torch.inference_mode()),
}
rows = {}
for key, (label, mode) in MODES.items():
    with mode():
        out = w * 2
        ran.clear()
        torch.ops.ldr_switches.echo(plain)
        rows[key] = {"label": label, "requires_grad": out.requires_grad, "grad_fn": None if out.grad_fn is None else out.grad_fn.name(),
                       "is_inference": out.is_inference(), "keys": str(torch._C._dispatch_keys(out)),
                       "grad_enabled": torch.is_grad_enabled(),
                       "inference_enabled": torch.is_inference_mode_enabled(),
                       "kernels": list(ran), **tls()}
with torch.no_grad():
    with torch.enable_grad():
        nested = w * 2
rows["enable_grad_in_no_grad"] = {"label": "enable_grad() inside no_grad()", "requires_grad": nested.requires_grad,
                                           "grad_fn": nested.grad_fn.name() if nested.grad_fn else None}

# enable_grad() turns the flag back on, but inside inference_mode the autograd keys stay excluded:
# only inference_mode(False) brings recording back there.
with torch.inference_mode():
    with torch.enable_grad():
        in_inference = w * 2
    with torch.inference_mode(False):
        reopened = w * 2
rows["enable_grad_in_inference"] = {"label": "enable_grad() inside inference_mode()",
                                    "requires_grad": in_inference.requires_grad,
                                    "grad_fn": in_inference.grad_fn.name() if in_inference.grad_fn else None,
                                    "is_inference": in_inference.is_inference()}
rows["inference_off_in_inference"] = {"label": "inference_mode(False) inside inference_mode()",
                                      "requires_grad": reopened.requires_grad,
                                      "grad_fn": reopened.grad_fn.name() if reopened.grad_fn else None}

print("out = w * 2, where w requires grad")
print(f"  {'mode':<24} {'grad on':<8} {'out requires grad':<18} {'inference':<10} kernels echo(x) ran")
for key, r in rows.items():
    if "kernels" not in r:
        continue
    print(f"  {r['label']:<24} {str(r['grad_enabled']):<8} {str(r['requires_grad']):<18} {str(r['is_inference']):<10} "
          f"{' -> '.join(r['kernels'])}")
print("  enable_grad() inside no_grad(): out requires grad",
      rows["enable_grad_in_no_grad"]["requires_grad"], "with", rows["enable_grad_in_no_grad"]["grad_fn"])
print("  enable_grad() inside inference_mode(): out requires grad",
      rows["enable_grad_in_inference"]["requires_grad"], "| inference tensor", rows["enable_grad_in_inference"]["is_inference"])
print("  inference_mode(False) inside inference_mode(): out requires grad",
      rows["inference_off_in_inference"]["requires_grad"], "with", rows["inference_off_in_inference"]["grad_fn"])
print("thread excludes the autograd keys:", ", ".join(f"{rows[k]['label']} {rows[k]['autograd_excluded']}" for k in MODES))
print("thread includes ADInplaceOrView:  ", ", ".join(f"{rows[k]['label']} {rows[k]['inplace_or_view_included']}" for k in MODES))
print("keys of out, grad on:       ", rows["grad_on"]["keys"])
print("keys of out, no_grad:       ", rows["no_grad"]["keys"])
print("keys of out, inference_mode:", rows["inference_mode"]["keys"])

# What an inference tensor may not do outside inference mode.
with torch.inference_mode():
    inf = torch.ones(3)
rules = {}
print("\nan inference tensor, made inside inference_mode(), used outside it:")
for key, label, act in (
    ("saved", "use it in a recorded op that saves it", lambda: (w * inf).sum().backward()),
    ("inplace", "write into it in place", lambda: inf.add_(1)),
    ("unsaved", "use it in a recorded op that saves nothing", lambda: (w + inf).sum().backward()),
    ("clone", "clone it, then use the clone", lambda: (w * inf.clone()).sum().backward()),
):
    try:
        act()
        rules[key] = None
    except RuntimeError as e:
        rules[key] = str(e).split("See https")[0].strip()
    print(f"  {label}: {'ok' if rules[key] is None else rules[key]}")

# detach() against requires_grad_(False)
a = torch.randn(3, requires_grad=True)
h = a * 2
d = h.detach()
try:
    h.requires_grad_(False)
    rg_error = None
except RuntimeError as e:
    rg_error = str(e)
a2 = torch.randn(3, requires_grad=True)
a2.requires_grad_(False)
detach = {"shares_storage": d.untyped_storage().data_ptr() == h.untyped_storage().data_ptr(),
          "requires_grad": d.requires_grad, "is_leaf": d.is_leaf, "grad_fn": d.grad_fn,
          "non_leaf_error": rg_error, "leaf_ok": not a2.requires_grad}
print("\nh = a * 2; d = h.detach()")
print("  d shares h's storage:", detach["shares_storage"], "| requires grad:", d.requires_grad, "| is a leaf:", d.is_leaf)
print("  h.requires_grad_(False) raised:", rg_error)
print("  on a leaf, requires_grad_(False) works:", detach["leaf_ok"])

print("MODES=" + json.dumps(rows))
print("INFERENCE_RULES=" + json.dumps(rules))
print("DETACH=" + json.dumps(detach))
