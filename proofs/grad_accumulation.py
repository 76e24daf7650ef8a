"""A tensor used twice, and the hooks that watch gradients arrive

Uses one leaf twice in an expression and one intermediate tensor three times. The engine adds the
gradients that arrive along each path before it runs the next node, so a tensor hook fires once
with the sum, and the leaf's `AccumulateGrad` runs once. A second backward adds into `.grad`;
a post-accumulate-grad hook sees the finished `.grad` each time. Last, the order in which tensor
hooks, node pre-hooks, node hooks and the post-accumulate-grad hook fire.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

x = torch.tensor([1.0, 2.0], requires_grad=True)
seen = {"x_hook": [], "h_hook": [], "post": [], "accumulate": 0}
x.register_hook(lambda g: seen["x_hook"].append(g.tolist()) and None)
x.register_post_accumulate_grad_hook(lambda p: seen["post"].append(p.grad.tolist()))

h = x * x                 # h depends on x twice: one MulBackward0 with two edges to x
h.register_hook(lambda g: seen["h_hook"].append(g.tolist()) and None)
y = h + h.sin() + 3 * h   # h used three times
acc = h.grad_fn.next_functions[0][0]
acc.register_prehook(lambda grads: seen.__setitem__("accumulate", seen["accumulate"] + 1) and None)
y.sum().backward()

expected_h = (1 + h.detach().cos() + 3).tolist()
expected_x = [e * 2 * v for e, v in zip(expected_h, x.detach().tolist())]
print("x = [1, 2]; h = x * x; y = h + h.sin() + 3 * h; y.sum().backward()")
print("  MulBackward0 for h has", len(h.grad_fn.next_functions), "edges, both to the same AccumulateGrad:",
      h.grad_fn.next_functions[0][0] is h.grad_fn.next_functions[1][0])
print("  the hook on h fired", len(seen["h_hook"]), "time(s), with", [round(v, 4) for v in seen["h_hook"][0]],
      "= 1 + cos(h) + 3")
print("  the hook on x fired", len(seen["x_hook"]), "time(s), with", [round(v, 4) for v in seen["x_hook"][0]],
      "= (1 + cos(h) + 3) * 2x")
print("  x's AccumulateGrad ran", seen["accumulate"], "time(s)")
print("  x.grad =", [round(v, 4) for v in x.grad.tolist()])

first = x.grad.clone().tolist()
counts = {"h_hook_calls": len(seen["h_hook"]), "x_hook_calls": len(seen["x_hook"]),
          "accumulate_runs": seen["accumulate"]}
y = (x * x).sum()
y.backward()
print("\na second backward, of (x * x).sum(), adds 2x into the same .grad:")
print("  x.grad =", [round(v, 4) for v in x.grad.tolist()], "=", [round(v, 4) for v in first], "+ [2, 4]")
print("  the post-accumulate hook saw .grad", len(seen["post"]), "times:",
      [[round(v, 4) for v in p] for p in seen["post"]])

# The order the hooks fire in, for an intermediate tensor's node and for a leaf's AccumulateGrad.
order = []
z = torch.tensor([1.0, 2.0], requires_grad=True)
m = z * z
acc_z = m.grad_fn.next_functions[0][0]
m.register_hook(lambda g: order.append("tensor hook on m"))
m.grad_fn.register_prehook(lambda g: order.append("MulBackward0 pre-hook"))
m.grad_fn.register_hook(lambda gi, go: order.append("MulBackward0 hook"))
z.register_hook(lambda g: order.append("tensor hook on z"))
acc_z.register_prehook(lambda g: order.append("AccumulateGrad pre-hook"))
z.register_post_accumulate_grad_hook(lambda p: order.append("post-accumulate-grad hook on z"))
acc_z.register_hook(lambda gi, go: order.append("AccumulateGrad hook"))
m.sum().backward()
print("\nthe order hooks fire in, for m = z * z; m.sum().backward():")
for i, name in enumerate(order):
    print(f"  {i}  {name}")

print("HOOK_ORDER=" + json.dumps(order))
print("USED_TWICE=" + json.dumps({
    **counts, "h_grad": seen["h_hook"][0], "expected_h": expected_h,
    "x_grad": first, "expected_x": expected_x, "edges": len(h.grad_fn.next_functions)}))
print("SECOND=" + json.dumps({"x_grad": x.grad.tolist(), "post_calls": len(seen["post"]), "post": seen["post"]}))
