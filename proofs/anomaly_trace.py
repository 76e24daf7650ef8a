"""Anomaly mode: which forward line made the bad gradient

Computes sqrt(x) * 0 at x = 0: the forward value is a clean 0, but backward multiplies 0 by the
infinite slope of sqrt and gets NaN. Plain backward returns the NaN silently. Under
`torch.autograd.detect_anomaly()` every node remembers the Python stack that created it, backward
raises at the first node whose output is NaN, and a warning carries the forward traceback.
"""

import json
import os
import re
import warnings

import torch

PROOF = {"timeout": 60, "parallel": True}


def model(x):
    y = x.sqrt()            # the slope of sqrt at 0 is infinite
    return (y * 0).sum()


x = torch.tensor([0.0, 4.0], requires_grad=True)
plain_keys = sorted(model(x).grad_fn.next_functions[0][0].metadata)
model(x).backward()
silent = x.grad.tolist()
print("plain backward: x.grad =", silent, "(no error, a NaN in the gradient)")

x.grad = None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        loss = model(x)
        anomaly_keys = sorted(loss.grad_fn.next_functions[0][0].metadata)
        try:
            loss.backward()
            error = None
        except RuntimeError as e:
            error = str(e)
print("\nunder detect_anomaly(), backward raised RuntimeError:")
print("  " + error)
texts = [str(w.message) for w in caught]
trace = next((t for t in texts if "Traceback of forward call" in t), "")
lines = [line for line in trace.splitlines() if line.strip()]
print("and warned, first line:", lines[0] if lines else None)
# the file's folder differs from machine to machine: keep only its name
shown = [re.sub(r'File "([^"]+)"', lambda m: f'File "{os.path.basename(m.group(1))}"', line.strip())
         for line in lines if "x.sqrt()" in line or "in model" in line]
print("node.metadata of the MulBackward0 node: plain", plain_keys, "| under detect_anomaly", anomaly_keys)
print("the traceback names the forward line:")
for line in shown:
    print("  " + line)

print("ANOMALY=" + json.dumps({"silent_grad": [None if g != g else g for g in silent],
                               "silent_has_nan": any(g != g for g in silent),
                               "error": error, "warning_first": lines[0] if lines else None,
                               "names_line": any("x.sqrt()" in line for line in lines),
                               "names_function": any("in model" in line for line in lines),
                               "plain_metadata": plain_keys, "anomaly_metadata": anomaly_keys}))
