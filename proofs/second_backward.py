"""A second backward, and a gradient of a gradient

Calls backward twice on one graph: the second call fails once the first has freed the saved
tensors, and succeeds with `retain_graph=True`, adding into `.grad` again. Then asks for the
second derivative of x**3 with `create_graph=True`, which records the backward pass as a graph
of its own.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
node = y.grad_fn.next_functions[0][0]            # PowBackward0, which saved x
print(f"y = (x ** 3).sum(), x = {x.tolist()}")
print(f"before backward: {node.name()} saved self = {node._saved_self.tolist()}")

y.backward()
first = x.grad.tolist()
print("first backward: x.grad =", first)
try:
    node._saved_self
    freed = None
except RuntimeError as e:
    freed = str(e)
print("reading the saved tensor afterwards raised:", freed is not None)
try:
    y.backward()
    second_error = None
except RuntimeError as e:
    second_error = str(e)
print("second backward raised RuntimeError:")
print("  " + second_error)

x.grad = None
y = (x ** 3).sum()
y.backward(retain_graph=True)
once = x.grad.tolist()
y.backward()
twice = x.grad.tolist()
print("\nwith retain_graph=True on the first call:")
print("  after one backward: x.grad =", once)
print("  after two:          x.grad =", twice, "(added, not replaced)")

# torch.autograd.grad returns the gradient and leaves .grad alone.
x.grad = None
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print("\ncreate_graph=True: dy/dx =", g.tolist(), "with grad_fn", g.grad_fn.name())
(g2,) = torch.autograd.grad(g.sum(), x)
print("d2y/dx2 =", g2.tolist(), "(6x); x.grad is still", x.grad)
(plain,) = torch.autograd.grad((x ** 3).sum(), x)
print("without create_graph the gradient has grad_fn", plain.grad_fn, "and requires_grad", plain.requires_grad)

print("SECOND=" + json.dumps({"first": first, "freed_error": freed, "error": second_error,
                              "once": once, "twice": twice}))
print("HIGHER=" + json.dumps({"first": g.tolist(), "second": g2.tolist(), "grad_fn": g.grad_fn.name(),
                              "x_grad_untouched": x.grad is None,
                              "plain_requires_grad": plain.requires_grad}))
