"""Where the compiled code lives

Shows that torch.randn is not Python code at all, that the torch._C extension
Python imports is only a small loader, and that the real weight sits in the shared
libraries beside it. It lists those libraries with their sizes for this platform (and
what a CUDA build keeps beside them without loading it at import), looks for the
generated binding of randn inside the Python bridge library, and asks which library
defines the tensor header, the CPU allocator and the dispatcher.
"""

import json
import os
import platform
import types

import torch

PROOF = {"timeout": 60, "parallel": True}

SUFFIXES = {"Linux": ".so", "Darwin": ".dylib", "Windows": ".dll"}


def is_library(name, suffix):
    # Linux ships versioned names too (libgomp.so.1), so accept ".so." inside the name.
    return name.endswith(suffix) or (suffix == ".so" and ".so." in name)


def scan(folder, label, suffix):
    found = []
    if not os.path.isdir(folder):
        return found
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and is_library(name, suffix):
            found.append({"name": name, "bytes": os.path.getsize(path), "folder": label})
    return found


def mapped_files():
    """Real paths of the files this process has mapped (Linux), or None where unknown."""
    try:
        with open("/proc/self/maps") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    paths = set()
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].startswith("/"):
            paths.add(os.path.realpath(fields[5]))
    return paths


def contains(path, needle, chunk=1 << 22):
    """Stream a file and report whether `needle` (bytes) occurs in it."""
    tail = b""
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                return False
            if needle in tail + block:
                return True
            tail = block[-len(needle):]


def human(n):
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000


system = platform.system()
suffix = SUFFIXES.get(system, ".so")
root = os.path.dirname(torch.__file__)

# 1. What kind of object is torch.randn?
randn_type = type(torch.randn).__name__
randn_builtin = isinstance(torch.randn, types.BuiltinFunctionType)
print("1. The function")
print(f"   type(torch.randn)          {randn_type}")
print(f"   written in Python?         {'no, it is compiled code' if randn_builtin else 'yes'}")
print()

# 2. The extension module Python actually imports.
ext_path = torch._C.__file__
ext = {"name": os.path.basename(ext_path), "bytes": os.path.getsize(ext_path)}
print("2. The extension Python imports")
print(f"   torch._C is loaded from    torch/{ext['name']}")
print(f"   its size                   {ext['bytes']:,} bytes ({human(ext['bytes'])})")
print()

# 3. The libraries that hold the code.
files = scan(os.path.join(root, "lib"), "torch/lib", suffix)
files += scan(root, "torch", suffix)
if not any(f["name"] == ext["name"] and f["folder"] == "torch" for f in files):
    # macOS names the extension .so and Windows .pyd, whatever the libraries use.
    files.append({"name": ext["name"], "bytes": ext["bytes"], "folder": "torch"})
# Which of them `import torch` really maps: on Linux the process's own memory map says,
# including libraries it pulls in from beside torch (a CUDA build's nvidia/ folders).
mapped = mapped_files()
site = os.path.dirname(root)
for f in files:
    folder = os.path.join(site, *f["folder"].split("/"))
    f["loaded"] = None if mapped is None else os.path.realpath(os.path.join(folder, f["name"])) in mapped
listed = {os.path.realpath(os.path.join(site, *f["folder"].split("/"), f["name"])) for f in files}
for path in sorted(mapped or ()):
    if path.startswith(site + os.sep) and path not in listed and is_library(os.path.basename(path), suffix):
        folder = os.path.relpath(os.path.dirname(path), site).replace(os.sep, "/")
        files.append({"name": os.path.basename(path), "bytes": os.path.getsize(path), "folder": folder,
                      "loaded": True})
files.sort(key=lambda f: (-f["bytes"], f["name"]))
total = sum(f["bytes"] for f in files)
# One block per folder, the heaviest folder first, so that the names stay readable.
folders = {}
for f in files:
    folders.setdefault(f["folder"], []).append(f)
order = sorted(folders, key=lambda k: -sum(f["bytes"] for f in folders[k]))
width = max(len(f["name"]) for f in files) + 2 if files else 10
mark = "  (* mapped by `import torch`)" if mapped is not None else ""
print(f"3. The shared libraries ({system}, '{suffix}'){mark}")
print(f"     {'file':<{width}}  {'size':>10}  {'share':>6}")
for folder in order:
    print(f"   {folder}/")
    for f in folders[folder]:
        share = f["bytes"] / total if total else 0.0
        name = f["name"] + (" *" if f["loaded"] else "")
        print(f"     {name:<{width}}  {human(f['bytes']):>10}  {share:>6.1%}")
print(f"     {'total':<{width}}  {human(total):>10}")
loaded = [f for f in files if f["loaded"]]
loaded_bytes = sum(f["bytes"] for f in loaded)
if mapped is not None:
    print(f"   mapped by `import torch`: {len(loaded)} of {len(files)} files, {human(loaded_bytes)}")
print()

largest = files[0] if files else {"name": None, "bytes": 0}
stub_share = ext["bytes"] / total if total else 0.0
print(f"   The largest file, {largest['name']}, is {largest['bytes'] / total:.1%} of the total;")
print(f"   the module Python imports is {stub_share:.4%} of it.")
print()

# Libraries a CUDA build keeps beside torch that `import torch` did not map: they are opened
# later, when first needed (cuDNN's engine libraries, for instance), and are not in the total.
unmapped, seen_unmapped = [], set()
if mapped is not None:
    for folder, _, names in os.walk(os.path.join(site, "nvidia")):
        for name in names:
            path = os.path.realpath(os.path.join(folder, name))
            if is_library(name, suffix) and path not in mapped and path not in listed \
                    and path not in seen_unmapped:
                seen_unmapped.add(path)  # a versioned link and its target count once
                unmapped.append({"name": name, "bytes": os.path.getsize(path)})
unmapped.sort(key=lambda f: (-f["bytes"], f["name"]))
unmapped_bytes = sum(f["bytes"] for f in unmapped)
if unmapped:
    print(f"   not mapped at import, left out of the total: {len(unmapped)} files in nvidia/,"
          f" {human(unmapped_bytes)} (largest: {unmapped[0]['name']})")
    print()

# 4. The generated binding: a C++ function that exists in the library, not in the repository.
# C++ names are stored mangled, with the length before the name: "17THPVariable_randnE" matches
# THPVariable_randn and not THPVariable_randn_like ("22THPVariable_randn_likeE").
symbol = "THPVariable_randn"
needle = f"{len(symbol)}{symbol}E".encode()
bridge = next((f for f in files if "torch_python" in f["name"]), None)
found = False
if bridge is not None:
    folder = os.path.join(root, "lib") if bridge["folder"] == "torch/lib" else root
    found = contains(os.path.join(folder, bridge["name"]), needle)
print("4. The binding torchgen wrote at build time")
where = bridge["name"] if bridge else "no Python bridge library found"
print(f"   symbol {symbol!r} (mangled ...{needle.decode()}...) in {where}: {'found' if found else 'not found'}")
print()

# 5. Which library defines what. A symbol found through a library's handle is defined in it or
# in what it loads; libc10 loads only system libraries, and libtorch_cpu loads libc10, so a
# symbol libtorch_cpu resolves and libc10 does not is libtorch_cpu's own (Linux only).
SYMBOLS = {  # data key: (what, mangled name)
    "tensor_impl": ("c10::TensorImpl::FreeMemory", "_ZN3c1010TensorImpl10FreeMemoryEv"),
    "cpu_allocator": ("c10::GetCPUAllocator", "_ZN3c1015GetCPUAllocatorEv"),
    "dispatcher": ("c10::Dispatcher::findSchema", "_ZN3c1010Dispatcher10findSchemaERKNS_12OperatorNameE"),
}
homes = {}
if system == "Linux":
    import ctypes

    def resolves(library, name):
        try:
            handle = ctypes.CDLL(os.path.join(root, "lib", library))
            getattr(handle, name)
            return True
        except (OSError, AttributeError):
            return False

    print("5. Which library defines what")
    for key, (label, name) in SYMBOLS.items():
        in_c10 = resolves("libc10.so", name)
        in_cpu = resolves("libtorch_cpu.so", name)
        homes[key] = "libc10.so" if in_c10 else "libtorch_cpu.so" if in_cpu else None
        print(f"   {label:<30} {homes[key] or 'not found'}")

print()
print("LIBRARIES=" + json.dumps({"system": system, "suffix": suffix, "files": files, "total_bytes": total}))
print("EXTENSION=" + json.dumps(ext))
print("RANDN=" + json.dumps({"type": randn_type, "builtin": randn_builtin}))
print("LARGEST=" + json.dumps({"name": largest["name"], "bytes": largest["bytes"],
                              "share": largest["bytes"] / total if total else 0.0}))
print("LOADED=" + json.dumps({"known": mapped is not None, "count": len(loaded), "bytes": loaded_bytes,
                             "files": len(files)}))
print("STUB=" + json.dumps({"share": stub_share, "ratio": total / ext["bytes"] if ext["bytes"] else None}))
print("UNMAPPED=" + json.dumps({"count": len(unmapped), "bytes": unmapped_bytes,
                               "largest": unmapped[0] if unmapped else None}))
print("HOMES=" + json.dumps(homes))
print("BINDING=" + json.dumps({"symbol": symbol, "mangled": needle.decode(), "library": bridge["name"] if bridge else None,
                              "library_bytes": bridge["bytes"] if bridge else None, "found": found}))
print("TORCH=" + json.dumps({"version": torch.__version__}))
