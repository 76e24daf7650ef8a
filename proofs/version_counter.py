"""Version counters, and the error they raise

Follows `_version` through in-place writes on a tensor, its views, `detach()` and `.data`; saves a
tensor for backward, overwrites it in place, and prints the error backward raises. Then
overwrites a tensor that no node saved, and backward runs fine. Last, the puzzle's write once more
with saved-tensor hooks installed: no version check, and a wrong gradient.
"""

import json

import torch

PROOF = {"timeout": 60, "parallel": True}

t = torch.zeros(4)
trace = [("t = torch.zeros(4)", t._version)]
t.add_(1)
trace.append(("t.add_(1)", t._version))
t[0] = 5
trace.append(("t[0] = 5", t._version))
t.mul_(2).add_(1)
trace.append(("t.mul_(2).add_(1)", t._version))
u = t + 1
trace.append(("u = t + 1 (out of place)", t._version))
v = t[1:]
v.zero_()
trace.append(("v = t[1:]; v.zero_()", t._version))
d = t.detach()
d.add_(1)
trace.append(("d = t.detach(); d.add_(1)", t._version))
data = t.data
data.add_(1)
trace.append(("t.data.add_(1)", t._version))
print("the version counter of t after each line:")
for line, version in trace:
    print(f"  {line:<28} t._version = {version}")
shared = {"view": v._version == t._version, "detach": d._version == t._version,
          "data": data._version == t._version}
print("shares t's counter: view", shared["view"], "| detach", shared["detach"], "| .data", shared["data"])

# A saved tensor overwritten: sigmoid saves its result.
a = torch.randn(3, requires_grad=True)
s = a.sigmoid()
saved_at = s._version
s.mul_(2)
try:
    s.sum().backward()
    error = None
except RuntimeError as e:
    error = str(e)
print("\ns = a.sigmoid(); s.mul_(2); s.sum().backward() raised:")
print("  " + error)

# A tensor no node saved: b * 1 is input to sigmoid, which saves only its output.
a.grad = None
b = a * 1
c = b.sigmoid()
b.add_(1)
c.sum().backward()
safe = a.grad is not None
print("\nb = a * 1; c = b.sigmoid(); b.add_(1); c.sum().backward() ran:", safe)
print("  (sigmoid saved its result, not b, so b's new version was never checked)")

# The lab: for each op, write in place into its input, its output or neither, then run backward.
OPS = {
    "exp": lambda a: a.exp(),
    "sin": lambda a: a.sin(),
    "relu": lambda a: a.relu(),
    "a * a": lambda a: a * a,
    "a + a": lambda a: a + a,
    "sigmoid": lambda a: a.sigmoid(),
}
lab = []
print("\nthe lab: write in place into the op's input a, its output out, or neither; then backward")
print(f"  {'op':<8} {'saved':<14} {'write':<7} {'a._version':>10} {'out._version':>12}  backward")
for label, op in OPS.items():
    for write in ("none", "input", "output"):
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = x * 1
        out = op(a)
        node = out.grad_fn
        before = {"a": a._version, "out": out._version}
        saved = []
        for name in sorted(n[len("_raw_saved_"):] for n in dir(node) if n.startswith("_raw_saved_")):
            holds = "output" if name == "result" else "input"
            saved.append({"slot": name, "holds": holds, "saved_version": before["a" if holds == "input" else "out"]})
        if write == "input":
            a.add_(1)
        elif write == "output":
            out.add_(1)
        versions = {"a": a._version, "out": out._version}
        try:
            out.sum().backward()
            outcome = {"ran": True, "grad": [round(g, 4) for g in x.grad.tolist()], "error": None}
        except RuntimeError as e:
            outcome = {"ran": False, "grad": None, "error": str(e).split(" Hint:")[0]}
        row = {"op": label, "node": node.name(), "write": write, "saved": saved, "before": before,
               "versions": versions, **outcome}
        lab.append(row)
        slots = ",".join(f"{s['slot']}" for s in saved) or "nothing"
        result = "ran" if outcome["ran"] else "error: " + outcome["error"].split(": ")[-1]
        print(f"  {label:<8} {slots:<14} {write:<7} {versions['a']:>10} {versions['out']:>12}  {result}")

# The same write as in the puzzle, with saved_tensors_hooks installed while forward saved s:
# a tensor saved through hooks is not version-checked, so backward runs on the overwritten values.
a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
right = (torch.sigmoid(a) * (1 - torch.sigmoid(a))).tolist()
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    s = a.sigmoid()
s.mul_(2)
try:
    s.sum().backward()
    hooked = {"ran": True, "grad": [round(g, 4) for g in a.grad.tolist()], "error": None}
except RuntimeError as e:
    hooked = {"ran": False, "grad": None, "error": str(e).split(" Hint:")[0]}
hooked["right"] = [round(g, 4) for g in right]
print("\nthe same write, but s was saved through saved_tensors_hooks(pack, unpack):")
print("  backward ran:", hooked["ran"], "| a.grad =", hooked["grad"], "| the true gradient =", hooked["right"])

print("TRACE=" + json.dumps([{"line": line, "version": version} for line, version in trace]))
print("SHARED=" + json.dumps(shared))
print("ERROR=" + json.dumps({"text": error, "saved_at": saved_at, "now": s._version}))
print("SAFE=" + json.dumps({"ran": safe, "b_version": b._version}))
print("LAB=" + json.dumps(lab))
print("HOOKED=" + json.dumps(hooked))
