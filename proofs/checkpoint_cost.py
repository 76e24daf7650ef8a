"""Activation checkpointing: memory traded for a second forward

Runs a stack of eight blocks (Linear then GELU) with and without `torch.utils.checkpoint`
(non-reentrant). Counts the bytes the graph keeps between forward and backward with
`saved_tensors_hooks` (what checkpoint keeps shows up there too: each block's input), counts
how often each block's forward runs, checks that the gradients agree, and times forward plus
backward both ways. What is timed: one forward and one backward on one CPU thread, gradients
reset to None between calls; and the forward alone, under `no_grad`, under `no_grad` with every
activation kept alive as a graph would keep it, recording, and checkpointed. Last, what
`checkpoint` does when `use_reentrant` is left out.
"""

import json
import warnings

import torch
from torch.utils.checkpoint import checkpoint
from _timing import measure, method_line, show

PROOF = {"timeout": 240, "parallel": False}

THREADS = 1
SAMPLES = 11
TARGET_MS = 20.0
WIDTH, DEPTH, BATCH = 256, 8, 256

torch.set_num_threads(THREADS)
torch.manual_seed(0)
calls = [0] * DEPTH


class Block(torch.nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i
        self.fc = torch.nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        calls[self.i] += 1
        return torch.nn.functional.gelu(self.fc(x))


blocks = torch.nn.ModuleList(Block(i) for i in range(DEPTH))
params = list(blocks.parameters())
param_ptrs = {p.untyped_storage().data_ptr() for p in params}
x = torch.randn(BATCH, WIDTH, requires_grad=True)


def loss_of(use_checkpoint):
    h = x
    for b in blocks:
        h = checkpoint(b, h, use_reentrant=False) if use_checkpoint else b(h)
    return h.square().mean()


def saved_bytes(use_checkpoint):
    packs = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packs.append(t) or t, lambda t: t):
        loss = loss_of(use_checkpoint)
    distinct = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in packs}
    return loss, len(packs), sum(n for k, n in distinct.items() if k not in param_ptrs)


rows = {}
grads = {}
for label, ck in (("plain", False), ("checkpointed", True)):
    for p in params:
        p.grad = None
    calls[:] = [0] * DEPTH
    loss, packs, act = saved_bytes(ck)
    forward_calls = sum(calls)
    loss.backward()
    rows[label] = {"packs": packs, "activation_bytes": act, "forward_calls": forward_calls,
                   "calls_after_backward": sum(calls)}
    grads[label] = [p.grad.clone() for p in params]
same = all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(grads["plain"], grads["checkpointed"]))
block_output = BATCH * WIDTH * 4

print(f"{DEPTH} blocks of Linear({WIDTH}, {WIDTH}) + GELU, batch {BATCH}, float32; one block output = {block_output:,} bytes")
print(f"  {'':<13} {'saved slots':>11} {'activation bytes kept':>22} {'block forwards':>15} {'after backward':>15}")
for label, r in rows.items():
    print(f"  {label:<13} {r['packs']:>11} {r['activation_bytes']:>22,} {r['forward_calls']:>15} {r['calls_after_backward']:>15}")
print("gradients agree:", same)


def step(use_checkpoint):
    def run():
        for p in params:
            p.grad = None
        x.grad = None
        loss_of(use_checkpoint).backward()
    return run


def forward_only():
    with torch.no_grad():
        loss_of(False)


def forward_keeping():
    """No graph, but every block's linear and GELU outputs stay alive until the end, as a graph
    would keep them: this separates the cost of holding memory from the cost of recording."""
    kept = []
    with torch.no_grad():
        h = x
        for b in blocks:
            z = b.fc(h)
            h = torch.nn.functional.gelu(z)
            kept += (z, h)
        h.square().mean()


timed = measure({"forward": ("forward alone, no_grad", forward_only),
                 "forward_kept": ("forward, no_grad, outputs kept", forward_keeping),
                 "forward_recording": ("forward alone, recording", lambda: loss_of(False)),
                 "forward_checkpointed": ("forward alone, checkpointed", lambda: loss_of(True)),
                 "plain": ("forward + backward", step(False)),
                 "checkpointed": ("same, checkpointed", step(True))},
                samples=SAMPLES, target_ms=TARGET_MS)
print()
print(method_line(SAMPLES, TARGET_MS))
for t in timed.values():
    print(show(t, unit="ms"))
ratio = timed["checkpointed"].median_us / timed["plain"].median_us
extra = (timed["checkpointed"].median_us - timed["plain"].median_us) / timed["forward"].median_us
print(f"checkpointed / plain: {ratio:.2f}; the extra time is {extra:.2f} forward passes")

# Leaving use_reentrant out: a warning, and the reentrant implementation (one custom Function node).
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    left_out = checkpoint(blocks[0], x)
default = {"warned": any("use_reentrant" in str(w.message) for w in caught),
           "node": left_out.grad_fn.name(),
           "node_non_reentrant": checkpoint(blocks[0], x, use_reentrant=False).grad_fn.name()}
print(f"checkpoint without use_reentrant: warned {default['warned']}, output's grad_fn {default['node']}"
      f" (with use_reentrant=False: {default['node_non_reentrant']})")

print("CKPT=" + json.dumps({"rows": rows, "grads_agree": same, "block_output_bytes": block_output,
                            "depth": DEPTH, "batch": BATCH, "width": WIDTH,
                            "memory_ratio": rows["checkpointed"]["activation_bytes"] / rows["plain"]["activation_bytes"]}))
print("DEFAULT=" + json.dumps(default))
print("TIME=" + json.dumps({k: t.data() for k, t in timed.items()} | {"ratio": ratio, "extra_forwards": extra}))
