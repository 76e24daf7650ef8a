"""What dtype does an op between two dtypes give?

Asks `torch.result_type` for every pair of eleven dtypes, tensor with tensor, and checks each
answer against the dtype `torch.add` really returns. Then the cases where one side is a Python
number or a 0-dim tensor: those only promote when they belong to a higher category (bool,
integer, floating, complex), so a float16 tensor plus 1e5 stays float16, and overflows.
"""

import json
import warnings

import torch

PROOF = {"timeout": 60, "parallel": True}

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64]


def name(dtype):
    return str(dtype).replace("torch.", "")


def category(dtype):
    if dtype == torch.bool:
        return "bool"
    if dtype.is_complex:
        return "complex"
    return "floating" if dtype.is_floating_point else "integer"


def info(dtype):
    signed = dtype.is_signed if dtype != torch.bool else False
    return {"name": name(dtype), "category": category(dtype), "bits": dtype.itemsize * 8, "signed": signed}


def sample(dtype):
    return torch.ones(2, dtype=dtype)


table, checked = [], 0
for a in DTYPES:
    row = []
    for b in DTYPES:
        result = torch.result_type(sample(a), sample(b))
        assert torch.add(sample(a), sample(b)).dtype == result, (a, b)
        checked += 1
        row.append(name(result))
    table.append(row)

# One side a Python number or a 0-dim tensor. Each case: the expression as written, the
# dimensioned tensor, what the other side is, and what comes out.
h = torch.tensor([1.0, 2.0], dtype=torch.float16)
i32 = torch.tensor([1, 2], dtype=torch.int32)
u8 = torch.tensor([0, 1], dtype=torch.uint8)
b = torch.tensor([True, False])
CASES = [
    ("i32 + 2.5", i32, 2.5),
    ("i32 + 7", i32, 7),
    ("u8 + (-1)", u8, -1),
    ("b + 1", b, 1),
    ("b + True", b, True),
    ("h + 1e5", h, 1e5),
    ("h + torch.tensor(1e5)", h, torch.tensor(1e5)),
    ("h + torch.tensor([1e5, 1e5])", h, torch.tensor([1e5, 1e5])),
    ("i32 + torch.tensor(5)", i32, torch.tensor(5)),
    ("i32 + torch.tensor(2.5, dtype=torch.float64)", i32, torch.tensor(2.5, dtype=torch.float64)),
    ("h + 1j", h, 1j),
    ("i32 + 1j", i32, 1j),
]
PY_CATEGORY = {bool: "bool", int: "integer", float: "floating", complex: "complex"}


def other_side(value):
    if isinstance(value, torch.Tensor):
        kind = "zero-dim" if value.dim() == 0 else "tensor"
        return {"kind": kind, "dtype": name(value.dtype), "category": category(value.dtype)}
    return {"kind": "python", "python_type": type(value).__name__, "category": PY_CATEGORY[type(value)]}


scalars = []
for expr, tensor, value in CASES:
    out = tensor + value
    assert out.dtype == torch.result_type(tensor, value), expr
    first = out[0].item()
    scalars.append({"expr": expr, "tensor": name(tensor.dtype), "tensor_category": category(tensor.dtype),
                    "other": other_side(value), "result": name(out.dtype), "first": repr(first)})

short = {"bool": "b", "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
         "complex64": "c64", "complex128": "c128"}
names = [name(d) for d in DTYPES]
print(f"torch {torch.__version__}: torch.result_type(a, b), a down, b across")
print("      " + "".join(f"{short[n]:>5}" for n in names))
for n, row in zip(names, table):
    print(f"{short[n]:>5} " + "".join(f"{short[r]:>5}" for r in row))
print(f"{checked} pairs, each checked against the dtype torch.add returns")
print()
print("h = float16 tensor, i32 = int32, u8 = uint8, b = bool (all 1-d)")
for s in scalars:
    print(f"  {s['expr']:<45} -> {s['result']:<10} {s['first']}")
print()
seen = set(names) | {r for row in table for r in row} | {s["result"] for s in scalars}
infos = {n: info(getattr(torch, n)) for n in sorted(seen)}
print("PROMOTION=" + json.dumps({"dtypes": names, "info": infos, "table": table,
                                "default_float": name(torch.get_default_dtype()),
                                "default_int": name(torch.tensor(1).dtype)}))
print("SCALARS=" + json.dumps(scalars))
