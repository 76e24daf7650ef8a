"""Where the compiler first sees aten operators

Compiles a small `nn.Linear` model with two backends that only record what they are handed:
one given TorchDynamo's graph directly, one behind AOTAutograd. Dynamo's graph holds
torch-level calls (`F.linear`, `relu`, the `sum` method); the graph AOTAutograd passes on holds
`aten` operators. `torch.export` hands over `aten` operators too, keeping `linear` whole
until its decompositions are run. No code is generated and no C++ compiler is needed.
"""

import json

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

PROOF = {"timeout": 300, "parallel": False}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
x = torch.randn(2, 4)


def targets(gm):
    """The call targets of an FX graph, in order, as readable names."""
    names = []
    for node in gm.graph.nodes:
        if node.op == "call_module":
            names.append(f"module {type(gm.get_submodule(node.target)).__name__}")
        elif node.op in ("call_function", "call_method"):
            t = node.target
            names.append(str(t) if isinstance(t, torch._ops.OpOverload) or isinstance(t, str)
                         else f"{getattr(t, '__module__', '') or ''}.{getattr(t, '__name__', t)}".lstrip("."))
    return names


seen = {}


def dynamo_backend(gm, example_inputs):
    seen["dynamo"] = targets(gm)
    return gm.forward


def aot_forward(gm, example_inputs):
    seen["aot_forward"] = targets(gm)
    return make_boxed_func(gm.forward)


def aot_backward(gm, example_inputs):
    seen["aot_backward"] = targets(gm)
    return make_boxed_func(gm.forward)


def f(inp):
    return model(inp).sum()


torch._dynamo.reset()
torch.compile(f, backend=dynamo_backend)(x)
torch._dynamo.reset()
loss = torch.compile(f, backend=aot_autograd(fw_compiler=aot_forward, bw_compiler=aot_backward))(x)
loss.backward()
exported = torch.export.export(model, (x,))
seen["export"] = targets(exported.graph_module)
seen["export_core"] = targets(exported.run_decompositions().graph_module)
torch._dynamo.reset()

for label, key in (("TorchDynamo's graph (what a backend is given without AOTAutograd)", "dynamo"),
                   ("AOTAutograd's forward graph", "aot_forward"),
                   ("AOTAutograd's backward graph", "aot_backward"),
                   ("torch.export's graph", "export"),
                   ("the same, after run_decompositions() (core ATen)", "export_core")):
    print(f"{label}:")
    for name in seen.get(key, []):
        print(f"  {name}")

# getitem only picks one result of an operator that returns several; it is not an operator.
aten_only = {k: bool(v) and all(n.startswith("aten.") or n == "_operator.getitem" for n in v) for k, v in seen.items()}
print("only aten operators (getitem aside):", ", ".join(f"{k} {v}" for k, v in aten_only.items()))
print("GRAPHS=" + json.dumps({"targets": seen, "aten_only": aten_only,
                              "dynamo_has_aten": any(n.startswith("aten.") for n in seen["dynamo"])}))
