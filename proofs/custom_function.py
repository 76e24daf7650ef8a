"""A custom autograd.Function, written the current way

Defines `Cube` with `forward`, `setup_context` and `backward`, checks its gradient against
finite differences with `gradcheck`, shows a deliberately wrong backward failing the same
check, and runs the good one under `torch.func.grad` and `vmap` (which also needs
`generate_vmap_rule = True`). An old-style Function that does its saving inside `forward` works
with `.backward()` but is refused by `torch.func`.
"""

import json

import torch
from torch.autograd.gradcheck import GradcheckError

PROOF = {"timeout": 60, "parallel": True}


class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


class WrongCube(Cube):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x ** 2           # the 3 became a 2


class OldCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = Cube.apply(x)
node = y.grad_fn
print("y = Cube.apply(x): y.grad_fn is", node.name(), "| a Node:", isinstance(node, torch.autograd.graph.Node))
y.sum().backward()
print("x.grad =", x.grad.tolist(), "(3x^2)")

xd = torch.randn(4, dtype=torch.float64, requires_grad=True)
good = torch.autograd.gradcheck(Cube.apply, (xd,))
try:
    torch.autograd.gradcheck(WrongCube.apply, (xd,))
    wrong = None
except GradcheckError as e:
    wrong = str(e).splitlines()[0]
print("gradcheck(Cube) passed:", good)
print("gradcheck(WrongCube) raised GradcheckError:", wrong)

fx = torch.tensor(2.0)
g = torch.func.grad(Cube.apply)(fx)
vm = torch.func.vmap(Cube.apply)(torch.tensor([1.0, 2.0]))
print("torch.func.grad(Cube.apply)(2.0) =", g.item(), "| vmap over [1, 2] =", vm.tolist())



class CubeNoRule(Cube):
    generate_vmap_rule = False                # setup_context alone does not give vmap a rule


try:
    torch.func.vmap(CubeNoRule.apply)(torch.tensor([1.0, 2.0]))
    no_rule = None
except RuntimeError as e:
    no_rule = " ".join(str(e).split()).split(" For more details")[0]
print("vmap without generate_vmap_rule raised:", no_rule)

xo = torch.tensor([1.0, 2.0], requires_grad=True)
OldCube.apply(xo).sum().backward()
print("\nOldCube (saving inside forward) with .backward(): x.grad =", xo.grad.tolist())
try:
    torch.func.grad(OldCube.apply)(fx)
    old_error = None
except RuntimeError as e:
    old_error = " ".join(str(e).split())
print("torch.func.grad(OldCube.apply) raised:", old_error)

print("CUBE=" + json.dumps({"node": node.name(), "grad": x.grad.tolist(), "gradcheck": good,
                            "wrong": wrong, "func_grad": g.item(), "vmap": vm.tolist(),
                            "vmap_without_rule": no_rule}))
print("OLD=" + json.dumps({"grad": xo.grad.tolist(), "func_error": old_error}))
