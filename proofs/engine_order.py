"""The order backward runs in

Builds a graph with three branches from one leaf (exp, sin, cos) and a product, hangs a pre-hook
on every node, and records the order in which the engine runs them, each node's sequence number
and the thread it ran on. A node runs only once every node that feeds it has run; among the
nodes that are ready, the one created last runs first.
"""

import json
import threading

import torch

PROOF = {"timeout": 60, "parallel": True}

x = torch.tensor([0.5, 1.0], requires_grad=True)
a = x.exp()
b = x.sin()
c = x.cos()
loss = a.sum() + b.sum() * c.sum()

ran = []
nodes = {}


def hang(fn):
    if fn is None or fn in nodes:
        return
    nodes[fn] = {"name": fn.name().replace("torch::autograd::", ""), "seq": fn._sequence_nr(),
                 "feeds": []}
    fn.register_prehook(lambda grads, fn=fn: ran.append(fn) and None)
    for nxt, _ in fn.next_functions:
        if nxt is not None:
            hang(nxt)
            nodes[nxt]["feeds"].append(fn)


hang(loss.grad_fn)
caller = threading.get_ident()
threads = set()
for fn in nodes:
    fn.register_prehook(lambda grads: threads.add(threading.get_ident()) and None)
loss.backward()

position = {fn: i for i, fn in enumerate(ran)}
rows = []
for i, fn in enumerate(ran):
    info = nodes[fn]
    rows.append({"step": i, "name": info["name"], "seq": info["seq"],
                 "after": sorted(position[f] for f in info["feeds"])})
print("forward: a = x.exp(); b = x.sin(); c = x.cos(); loss = a.sum() + b.sum() * c.sum()")
print("backward ran the nodes in this order:")
print(f"  {'step':>4}  {'node':<15} {'seq':>4}  runs after steps")
for r in rows:
    seq = "max" if r["seq"] == 2 ** 64 - 1 else r["seq"]
    print(f"  {r['step']:>4}  {r['name']:<15} {seq:>4}  {r['after'] or '-'}")
# The queue at each step, derived from the recorded run: a node is ready once every node that
# feeds it has run, and waits in the queue until the engine picks it.
feeders = {r["step"]: set(r["after"]) for r in rows}
for r in rows:
    k = r["step"]
    ready = [j for j in range(k, len(rows)) if all(p < k for p in feeders[j])]
    r["ready"] = ready
    r["picked_highest"] = max(ready, key=lambda j: rows[j]["seq"]) == k
print("at every step the engine ran the ready node with the highest sequence number:",
      all(r["picked_highest"] for r in rows))
dependencies_kept = all(all(p < r["step"] for p in r["after"]) for r in rows)
finite = [r["seq"] for r in rows if r["seq"] != 2 ** 64 - 1]
print("every node ran after all the nodes that feed it:", dependencies_kept)
print("sequence numbers fall step by step:", finite == sorted(finite, reverse=True))
print("AccumulateGrad for x ran once, last:", [r["name"] for r in rows].count("AccumulateGrad") == 1
      and rows[-1]["name"] == "AccumulateGrad")
print("threads used:", len(threads), "| the calling thread:", threads == {caller})
print("x.grad =", [round(g, 4) for g in x.grad.tolist()])

print("ORDER=" + json.dumps(rows))
print("ENGINE=" + json.dumps({"dependencies_kept": dependencies_kept,
                              "seq_descending": finite == sorted(finite, reverse=True),
                              "threads": len(threads), "on_caller": threads == {caller},
                              "nodes": len(rows),
                              "picked_highest": all(r["picked_highest"] for r in rows)}))
