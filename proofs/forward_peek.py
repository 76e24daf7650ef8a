"""Forward-mode AD and torch.func, in brief

Computes one directional derivative of f(x) = sin(x) * x two ways: forward mode, with a dual
tensor that carries a tangent alongside the value through the same forward pass, and reverse
mode, with backward. Then asks `torch.func` for the gradient, a full Jacobian both ways, and a
per-example gradient with `vmap`.
"""

import json

import torch
import torch.autograd.forward_ad as fwAD

PROOF = {"timeout": 60, "parallel": True}


def f(x):
    return torch.sin(x) * x


x = torch.tensor([0.5, 1.0, 2.0])
v = torch.tensor([1.0, 0.0, 0.0])           # the direction: the first coordinate only
with fwAD.dual_level():
    dual = fwAD.make_dual(x, v)
    out = f(dual)
    primal, tangent = fwAD.unpack_dual(out)
    grad_fn_in_forward = out.grad_fn
print("f(x) = sin(x) * x at x =", x.tolist())
print("forward mode, tangent v =", v.tolist(), "-> J v =", [round(t, 4) for t in tangent.tolist()])
print("  no graph was recorded: the result's grad_fn is", grad_fn_in_forward)

xr = x.clone().requires_grad_()
(vjp,) = torch.autograd.grad(f(xr), xr, grad_outputs=torch.ones(3))
print("reverse mode, u = [1, 1, 1] -> u^T J =", [round(t, 4) for t in vjp.tolist()])

jf = torch.func.jacfwd(f)(x)
jr = torch.func.jacrev(f)(x)
print("jacfwd and jacrev agree:", torch.allclose(jf, jr), "| the Jacobian is diagonal:",
      torch.count_nonzero(jf - torch.diag(torch.diagonal(jf))).item() == 0)
g = torch.func.grad(lambda t: f(t).sum())(x)
print("torch.func.grad(sum of f) =", [round(t, 4) for t in g.tolist()], "(a plain function, no .grad)")

w = torch.tensor([1.0, -1.0, 0.5])
batch = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
per_example = torch.func.vmap(torch.func.grad(lambda w, row: (row @ w) ** 2), in_dims=(None, 0))(w, batch)
print("vmap(grad) gives one gradient per example:", list(per_example.shape))

print("FORWARD=" + json.dumps({"tangent": tangent.tolist(), "vjp": vjp.tolist(),
                               "tangent_matches": abs(tangent[0].item() - vjp[0].item()) < 1e-6,
                               "no_graph": grad_fn_in_forward is None,
                               "jac_agree": bool(torch.allclose(jf, jr)),
                               "per_example_shape": list(per_example.shape)}))
