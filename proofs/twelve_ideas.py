"""Twelve ideas, one small check each

Runs a tiny experiment for each of the twelve ideas that organise the series: strides
and views, the records autograd keeps, the op list, the generated code, the switches
in the dispatcher, the toll, memory, Python, forward deciding backward, shared bytes,
history, and floating point. No timing: every line here should read the same on any machine with the same torch build.
"""

import importlib.util
import json
import os
import textwrap
import warnings

import torch

PROOF = {"timeout": 60, "parallel": True}

# Count the registered ops first, before anything else loads more of torch.
OPS_AT_IMPORT = torch._C._dispatch_get_all_op_names()

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402  (after the count)

torch.manual_seed(0)
ideas = {}
print(f"Twelve ideas, checked on torch {torch.__version__}")


def heading(number, title):
    print()
    print(f"{number:>2}. {title}")


LABEL = 40   # label column
WIDTH = 76   # longest line with label and value side by side
WRAP = 60    # long values and messages wrap here, to quote well on a page


def show(label, value):
    text = str(value)
    if len(label) <= LABEL and 4 + LABEL + 1 + len(text) <= WIDTH:
        print(f"    {label:<{LABEL}} {text}")
    else:  # a long value goes on its own, indented lines
        print(f"    {label}")
        for line in textwrap.wrap(text, WRAP):
            print(f"      {line}")


def quote(text):
    """A message from torch, wrapped and quoted."""
    for line in textwrap.wrap(f'"{text}"', WRAP):
        print(f"      {line}")


# 1. A tensor is a view over storage.
heading(1, "A tensor is a view over storage")
t = torch.arange(6.0).reshape(2, 3)
tt = t.t()
show("t = arange(6).reshape(2, 3): stride", tuple(t.stride()))
show("t.t(): stride", tuple(tt.stride()))
show("t.t() shares t's storage", tt.data_ptr() == t.data_ptr())
show("t.t() is contiguous", tt.is_contiguous())
try:
    tt.view(6)
    view_error = None
except RuntimeError as err:
    view_error = str(err)
show("t.t().view(6)", "RuntimeError" if view_error else "worked")
if view_error:
        quote(view_error)
flat = tt.reshape(6)
show("t.t().reshape(6) copied into new storage", flat.data_ptr() != t.data_ptr())
ideas["views"] = {
    "stride": list(t.stride()), "t_stride": list(tt.stride()),
    "t_shares_storage": tt.data_ptr() == t.data_ptr(), "t_contiguous": tt.is_contiguous(),
    "view_error": view_error, "reshape_copies": flat.data_ptr() != t.data_ptr(),
}

# 2. Autograd records a program, one record per change.
heading(2, "Autograd writes one record per change")
a = torch.randn(3, requires_grad=True)
b = a * 2
chain = [type(b.grad_fn).__name__]
versions = [b._version]
b.add_(1)
chain.append(type(b.grad_fn).__name__)
versions.append(b._version)
b[0] = 0.0
chain.append(type(b.grad_fn).__name__)
versions.append(b._version)
show("b = a * 2            -> b.grad_fn", chain[0])
show("b.add_(1)            -> b.grad_fn", chain[1])
show("b[0] = 0.0           -> b.grad_fn", chain[2])
show("b._version after each step", versions)
ideas["records"] = {"chain": chain, "versions": versions}

# 3. The op list is the real interface.
heading(3, "The op list is the real interface")
aten = [n for n in OPS_AT_IMPORT if n.startswith("aten::")]
bases = {n.split(".")[0] for n in aten}
spaces = {n.split("::")[0] for n in OPS_AT_IMPORT}


class OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


layer = torch.nn.Linear(4, 3)
inp = torch.randn(2, 4)
with OpLog() as log:
    layer(inp).sum()
show("registered op names right after import", f"{len(OPS_AT_IMPORT):,}")
show("  of which in the aten namespace", f"{len(aten):,}")
show("  distinct aten ops (overloads merged)", f"{len(bases):,}")
show("  namespaces", len(spaces))
show("Linear(4, 3)(x).sum() reaches", ", ".join(log.ops))
# aten::linear is registered, yet never reaches the mode: its kernel is a composite one, filed
# under CompositeImplicitAutograd, that runs above autograd and calls t and addmm instead.
has = torch._C._dispatch_has_kernel_for_dispatch_key
linear_composite = has("aten::linear", "CompositeImplicitAutograd")
linear_cpu = has("aten::linear", "CPU")
show("aten::linear in the op list", "aten::linear" in OPS_AT_IMPORT)
show("aten::linear: CompositeImplicitAutograd", linear_composite)
show("aten::linear: a CPU kernel of its own", linear_cpu)
ideas["op_list"] = {"ops": len(OPS_AT_IMPORT), "aten": len(aten), "aten_distinct": len(bases),
                    "namespaces": len(spaces), "linear_sum_ops": log.ops, "linear_sum_count": len(log.ops),
                    "linear_listed": "aten::linear" in OPS_AT_IMPORT,
                    "linear_composite": linear_composite, "linear_cpu_kernel": linear_cpu}

# 4. Much of PyTorch is generated, not typed: two YAML files drive the generator.
heading(4, "Two YAML files drive the code generator")
spec = importlib.util.find_spec("torchgen")
counts = {"native_functions": None, "derivatives": None}
if spec and spec.submodule_search_locations:
    base = os.path.join(list(spec.submodule_search_locations)[0], "packaged")
    files = {"native_functions": (os.path.join(base, "ATen", "native", "native_functions.yaml"),
                                  "- func:"),
             "derivatives": (os.path.join(base, "autograd", "derivatives.yaml"), "- name:")}
    for key, (path, marker) in files.items():
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                counts[key] = sum(1 for line in handle if line.startswith(marker))
show("entries in native_functions.yaml", "not shipped" if counts["native_functions"] is None
     else f"{counts['native_functions']:,} (one per op signature)")
show("entries in derivatives.yaml", "not shipped" if counts["derivatives"] is None
     else f"{counts['derivatives']:,} (one per differentiable signature)")
show("(both read from the torchgen copy shipped in the wheel)", "")
# More ops come from native_functions.yaml than its `- func:` lines: an `autogen:` line names
# variants (out=, functional) that the generator writes. And a derivatives.yaml entry is a
# formula, often a call to a C++ helper written by hand (torch/csrc/autograd/FunctionsManual.cpp);
# `result:` lines are forward-mode formulas.
extra = {"autogen_ops": None, "forward_formulas": None, "addmm_mat1": None}
if counts["native_functions"] is not None:
    with open(files["native_functions"][0], encoding="utf-8") as handle:
        extra["autogen_ops"] = sum(len([n for n in line.split(":", 1)[1].split(",") if n.strip()])
                                   for line in handle if line.startswith("  autogen:"))
    show("ops named on autogen: lines", f"{extra['autogen_ops']:,}")
if counts["derivatives"] is not None:
    with open(files["derivatives"][0], encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    extra["forward_formulas"] = sum(1 for line in lines if line.startswith("  result:"))
    at = next(i for i, line in enumerate(lines) if line.startswith("- name: addmm("))
    extra["addmm_mat1"] = next(line.split(":", 1)[1].strip() for line in lines[at:]
                               if line.startswith("  mat1:"))
    show("forward-mode formulas (result: lines)", f"{extra['forward_formulas']:,}")
    show("addmm's formula for mat1", extra["addmm_mat1"])
ideas["codegen"] = {**counts, **extra}

# 5. Features are dispatcher layers behind a switch.
heading(5, "Features are layers behind a switch")
plain_t = torch.randn(2, 2)
x = torch.randn(2, 2, requires_grad=True)
keys = str(torch._C._dispatch_keys(plain_t))
keys_rg = str(torch._C._dispatch_keys(x))
autocast_key = torch._C.DispatchKey.AutocastCPU
asleep = torch._C._dispatch_tls_is_dispatch_key_excluded(autocast_key)
excluded = str(torch._C._dispatch_tls_local_exclude_set())
with torch.no_grad():
    grad_mode_inside = torch.is_grad_enabled()
    rg_inside = (x * 2).requires_grad
    excluded_no_grad = str(torch._C._dispatch_tls_local_exclude_set())
with torch.inference_mode():
    excluded_inference = str(torch._C._dispatch_tls_local_exclude_set())
    keys_inference = str(torch._C._dispatch_keys(torch.randn(2, 2)))
with torch.autocast("cpu"):
    awake = not torch._C._dispatch_tls_is_dispatch_key_excluded(autocast_key)
    autocast_dtype = str((x @ x).dtype).replace("torch.", "")
show("keys a CPU tensor carries", keys.replace("DispatchKeySet", ""))
show("same keys when it requires grad", keys_rg == keys)
show("(x * 2).requires_grad, normal", (x * 2).requires_grad)
show("(x * 2).requires_grad inside no_grad()", rg_inside)


def key_names(text):
    return text.replace("DispatchKeySet(", "").rstrip(")").replace(" ", "").split(",")


added_no_grad = [k for k in key_names(excluded_no_grad) if k not in key_names(excluded)]
added_inference = [k for k in key_names(excluded_inference) if k not in key_names(excluded)]
show("keys no_grad() adds to the thread's excluded", ", ".join(added_no_grad) or "none")
show("inference_mode() changes the excluded keys", bool(added_inference))
show("keys of a tensor made in inference_mode", keys_inference.replace("DispatchKeySet", ""))
show("AutocastCPU off by default", asleep)
show("AutocastCPU on inside autocast('cpu')", awake)
show("x @ x dtype inside autocast('cpu')", autocast_dtype)

# Which kernels run? Register a tiny op with its own CPU and AutogradCPU kernels, each noting
# that it ran, and call it on a tensor that does not require grad.
ran = []
lib = torch.library.Library("ldr_twelve", "DEF")
lib.define("echo(Tensor x) -> Tensor")


def echo_cpu(t):
    ran.append("CPU")
    return t.clone()


def echo_autograd(t):
    ran.append("AutogradCPU")
    with torch._C._AutoDispatchBelowAutograd():  # what a generated autograd kernel does too
        return torch.ops.ldr_twelve.echo(t)


lib.impl("echo", echo_cpu, "CPU")
lib.impl("echo", echo_autograd, "AutogradCPU")
runs = {}
for label, mode in (("plain", None), ("no_grad", torch.no_grad), ("inference_mode", torch.inference_mode)):
    ran.clear()
    if mode is None:
        torch.ops.ldr_twelve.echo(plain_t)
    else:
        with mode():
            torch.ops.ldr_twelve.echo(plain_t)
    runs[label] = list(ran)
    show(f"kernels run for echo(x), {label}", " -> ".join(ran))

# A factory such as randn has no tensor to take keys from: BackendSelect picks the backend from
# its device argument, and its CPU slot is a CompositeExplicitAutograd kernel. The generated
# C++ wrapper skips autograd and sets requires_grad on the result afterwards: no node.
has = torch._C._dispatch_has_kernel_for_dispatch_key
randn_rg = torch.randn(2, requires_grad=True)
factory = {"backend_select": has("aten::randn", "BackendSelect"),
           "composite_explicit": has("aten::randn", "CompositeExplicitAutograd"),
           "add_backend_select": has("aten::add.Tensor", "BackendSelect"),
           "requires_grad": randn_rg.requires_grad, "grad_fn": None if randn_rg.grad_fn is None
           else type(randn_rg.grad_fn).__name__, "is_leaf": randn_rg.is_leaf}
show("aten::randn has a BackendSelect kernel", factory["backend_select"])
show("aten::add.Tensor has one", factory["add_backend_select"])
show("randn(2, requires_grad=True).grad_fn", factory["grad_fn"])
# Which ops have their own kernel in the ADInplaceOrView slot: in-place writes and views do.
slot = {name: has(op, "ADInplaceOrView")
        for name, op in (("add_", "aten::add_.Tensor"), ("transpose", "aten::transpose.int"),
                         ("add", "aten::add.Tensor"))}
show("ADInplaceOrView kernel for add_, transpose, add", ", ".join(str(v) for v in slot.values()))
ideas["switches"] = {"keys": keys, "keys_requires_grad": keys_rg, "requires_grad_outside": (x * 2).requires_grad,
                     "requires_grad_inside": rg_inside, "grad_enabled_inside": grad_mode_inside,
                     "excluded": excluded, "excluded_no_grad": excluded_no_grad,
                     "excluded_inference": excluded_inference, "keys_inference": keys_inference,
                     "excluded_added_no_grad": added_no_grad,
                     "excluded_added_inference": added_inference,
                     "kernels_run": runs, "factory": factory,
                     "autocast_asleep": asleep, "autocast_awake": awake,
                     "autocast_dtype": autocast_dtype, "inplace_view_kernel": slot}

# 6. Every op pays a fixed cost first (timed in dispatch_cost; here, the path it pays for).
heading(6, "Every op pays the same fixed path")
one, many = torch.randn(1), torch.randn(4 ** 11)
same = torch._C._dispatch_keys(one) == torch._C._dispatch_keys(many)
show("dispatch keys, 1 element vs 4,194,304", "identical" if same else "different")
show("(the time this path costs: see dispatch_cost)", "")
ideas["toll"] = {"same_keys": same}

# 7. Memory, not speed, ends training runs.
heading(7, "Memory grows with the batch, not the model")
r = torch.randn(64, 128)
show("torch.randn(64, 128).nbytes", f"{r.nbytes:,} bytes")
mlp = torch.nn.Sequential(*[torch.nn.Linear(256, 256) if i % 2 == 0 else torch.nn.ReLU()
                            for i in range(8)])
param_ptrs = {p.untyped_storage().data_ptr() for p in mlp.parameters()}
param_bytes = sum(p.nbytes for p in mlp.parameters())


def saved_bytes(batch):
    storages = {}

    def pack(saved):
        store = saved.untyped_storage()
        if store.data_ptr() not in param_ptrs:  # weights were in memory already
            storages[store.data_ptr()] = store.nbytes()  # one entry per buffer, however often saved
        return saved

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda saved: saved):
        mlp(torch.randn(batch, 256)).sum()
    return sum(storages.values())


saved = {f"batch_{bs}": saved_bytes(bs) for bs in (1, 64, 1024)}
show("parameters of a 4-layer, 256-wide MLP", f"{param_bytes:,} bytes")
for key, nbytes in saved.items():
    show(f"tensors saved for backward, batch {key[6:]}", f"{nbytes:,} bytes")
ideas["memory"] = {"randn_64x128_bytes": r.nbytes, "param_bytes": param_bytes, "saved_bytes": saved}

# 8. Python is why it won and what it costs.
heading(8, "Python on top, compiled code underneath")
show("type(torch.randn).__name__", type(torch.randn).__name__)
jit_names = [n for n in dir(torch._C) if n.startswith("_jit")]


def scale(v):
    return v * 2


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        torch.jit.script(scale)
    except Exception:  # the warning is what we came for
        pass
# A deprecation may be announced as a DeprecationWarning (hidden by default) or, louder, as a
# FutureWarning (shown to every user); releases have used both, so accept either and say which.
deprecation = next((w for w in caught if issubclass(w.category, (DeprecationWarning, FutureWarning))), None)
jit_warning = str(deprecation.message) if deprecation else None
jit_category = deprecation.category.__name__ if deprecation else None
show("torch.jit.script(...) warns", f"yes, a {jit_category}" if jit_warning else "no")
if jit_warning:
        quote(jit_warning)
# The binding checks for __torch_function__ overrides and modes before it enters C++.
from torch.overrides import TorchFunctionMode  # noqa: E402


class CallLog(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


with CallLog() as calls:
    torch.add(torch.randn(2), 1)
show("a TorchFunctionMode sees", ", ".join(calls.calls))
ideas["python"] = {"randn_type": type(torch.randn).__name__, "jit_warning": jit_warning,
                   "jit_warning_category": jit_category, "function_mode_calls": calls.calls}

# 9. The backward pass is planned during the forward pass.
heading(9, "Backward is planned during forward")
w = torch.randn(3, 4, requires_grad=True)
plain = torch.randn(2, 3)
tracked = torch.randn(2, 3, requires_grad=True)
f1 = torch.addmm(torch.zeros(4), plain, w).grad_fn
f2 = torch.addmm(torch.zeros(4), tracked, w).grad_fn
saved_plain = f1._saved_mat2 is not None
saved_tracked = f2._saved_mat2 is not None
show("addmm(b, x, w) keeps w, x plain", saved_plain)
show("addmm(b, x, w) keeps w, x requires grad", saved_tracked)
ideas["forward_decides"] = {"mat2_saved_plain": saved_plain, "mat2_saved_tracked": saved_tracked}

# 10. Aliasing and mutation make the worst bugs together.
heading(10, "Aliasing plus mutation")
base = torch.ones(4)
window = base[:2]
window.mul_(0)
show("ones(4) after [:2].mul_(0)", base.tolist())
p = torch.randn(3, requires_grad=True)
s = p.sigmoid()  # sigmoid saves its output for backward
s.mul_(2)        # ...which we then overwrite in place
try:
    s.sum().backward()
    inplace_error = None
except RuntimeError as err:
    inplace_error = str(err).split(". Hint")[0]
show("backward after overwriting saved output", "RuntimeError" if inplace_error else "worked")
if inplace_error:
        quote(inplace_error)
ideas["shared_bytes"] = {"base_after": base.tolist(), "inplace_error": inplace_error}

# 11. Old names survive in new code.
heading(11, "Old names survive in new code")
show("_jit entries still in torch._C", len(jit_names))
show("torch.compile present", hasattr(torch, "compile"))
show("Tensor's compiled base class", torch.Tensor.__mro__[1].__qualname__)
ideas["history"] = {"jit_entries": len(jit_names), "has_compile": hasattr(torch, "compile"),
                    "tensor_base": torch.Tensor.__mro__[1].__qualname__}

# 12. Floats promise a rounding rule, not exact arithmetic.
heading(12, "Floats round by rule")
big32 = torch.tensor(1e8, dtype=torch.float32)
big64 = torch.tensor(1e8, dtype=torch.float64)
r32 = ((big32 + 1) - big32).item()
r64 = ((big64 + 1) - big64).item()
order_a = torch.tensor([1e8, 1.0, -1e8]).sum().item()
order_b = torch.tensor([1e8, -1e8, 1.0]).sum().item()
show("(1e8 + 1) - 1e8 in float32", r32)
show("(1e8 + 1) - 1e8 in float64", r64)
show("sum([1e8, 1, -1e8]) in float32", order_a)
show("sum([1e8, -1e8, 1]) in float32", order_b)
show("float32 eps (gap after 1.0)", torch.finfo(torch.float32).eps)
ideas["floating"] = {"float32": r32, "float64": r64, "order_a": order_a, "order_b": order_b,
                     "eps32": torch.finfo(torch.float32).eps}

ops_now = len(torch._C._dispatch_get_all_op_names())
print()
if ops_now != len(OPS_AT_IMPORT):
    print(f"The op count above is taken at import. By the end of this script it is {ops_now:,}:")
    print("torch registers more ops as more of it loads.")
else:
    print("The op count did not change while this script ran.")
ideas["op_list"]["ops_at_end"] = ops_now

print()
print("IDEAS=" + json.dumps(ideas))
