"""A Python number picks the kind of the result, never its width

Mixes tensors with Python numbers and with zero-dimensional tensors, and prints the
result dtype of each. A number can lift an integer tensor to the default float dtype
but never widens a float16 or an int8 tensor; a 0-dim tensor only counts when it is
of a higher kind (and then, lifting a float to complex, the float's width decides). Also
shows the integer overflow and the true division that follow, and three ops that do not
promote the way `+` does: a matrix product, an in-place add and an integer sum.
"""

import json
import warnings

import torch

PROOF = {"timeout": 60, "parallel": True}

i8 = torch.tensor([100, 120], dtype=torch.int8)
i32 = torch.tensor([7, 8], dtype=torch.int32)
h = torch.tensor([1.0, 2.0], dtype=torch.float16)
f = torch.tensor([1.0, 2.0])
d0 = torch.tensor(1.0, dtype=torch.float64)        # zero-dim float64
i64_0 = torch.tensor(1)                             # zero-dim int64
c0 = torch.tensor(1j, dtype=torch.complex64)       # zero-dim complex64

cases = [  # (data key, expression, thunk)
    ("int8_plus_int", "int8 tensor + 1", lambda: i8 + 1),
    ("int8_plus_float", "int8 tensor + 1.5", lambda: i8 + 1.5),
    ("int32_plus_bool", "int32 tensor + True", lambda: i32 + True),
    ("half_plus_float", "float16 tensor + 1.5", lambda: h + 1.5),
    ("half_plus_0d_f64", "float16 + 0-dim float64", lambda: h + d0),
    ("int8_plus_0d_i64", "int8 + 0-dim int64", lambda: i8 + i64_0),
    ("int32_plus_0d_f64", "int32 + 0-dim float64", lambda: i32 + d0),
    ("half_plus_float32", "float16 + float32 tensor", lambda: h + f),
    ("int8_plus_int32", "int8 + int32 tensor", lambda: i8 + i32),
    ("int_div_int", "int32 / int32", lambda: i32 / i32),
    ("int_floordiv", "int32 // 2", lambda: i32 // 2),
]

print(f"  {'expression':<26} result dtype")
result = {}
for key, expr, fn in cases:
    r = fn()
    name = str(r.dtype).replace("torch.", "")
    result[key] = name
    print(f"  {expr:<26} {name}")
print()

# A 0-dim complex tensor lifts a floating tensor to complex, and the float's width decides:
# float16 becomes complex32 (torch warns that ComplexHalf is experimental), float64 complex128.
lifted = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for key, expr, fn in (("half_plus_0d_c64", "float16 + 0-dim complex64", lambda: h + c0),
                          ("float_plus_0d_c64", "float32 + 0-dim complex64", lambda: f + c0),
                          ("double_plus_0d_c64", "float64 + 0-dim complex64",
                           lambda: f.double() + c0)):
        lifted[key] = str(fn().dtype).replace("torch.", "")
        print(f"  {expr:<26} {lifted[key]}")
print()

# Not every op promotes. Matrix products want equal dtypes, an in-place result must fit the
# tensor written into, and a reduction has its own rule (an integer sum is int64).
limits = {}
for key, expr, fn in (("matmul", "float16 @ float32", lambda: h.reshape(1, 2) @ f.reshape(2, 1)),
                      ("inplace", "int32.add_(1.5)", lambda: i32.clone().add_(1.5))):
    try:
        fn()
        limits[key] = None
        print(f"{expr}: works")
    except RuntimeError as err:
        limits[key] = str(err).split("\n")[0]
        print(f"{expr} raises: {limits[key]}")
limits["int32_sum"] = str(i32.sum().dtype).replace("torch.", "")
limits["int8_sum"] = str(i8.sum().dtype).replace("torch.", "")
print(f"int32 tensor .sum() gives {limits['int32_sum']}, int8 .sum() gives {limits['int8_sum']}")
print()

wrapped = (i8 + 100).tolist()
print(f"int8 tensor {i8.tolist()} + 100 stays int8 and wraps: {wrapped}")
auto = torch.result_type(i8, 1.5)
print(f"torch.result_type(int8 tensor, 1.5) = {auto}")
print(f"torch.get_default_dtype()          = {torch.get_default_dtype()}")

print()
print("RESULT=" + json.dumps({**result, **lifted}))
print("LIMITS=" + json.dumps(limits))
print("WRAP=" + json.dumps({"input": i8.tolist(), "plus_100": wrapped}))
print("DEFAULT=" + json.dumps({
    "dtype": str(torch.get_default_dtype()).replace("torch.", "")}))
