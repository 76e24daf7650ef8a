"""Write Part 0's drawings into drawings/: python -m drawings._make.make_part0 (from the repo root).

The committed .excalidraw files are the source of truth once written: edit them in Excalidraw
freely; rerunning this script overwrites them with the generated originals.
"""

from __future__ import annotations

from pathlib import Path

from .kit import CONTEXT, CONTEXT_SOFT, INK, INK_SOFT, SUBJECT, SUBJECT_SOFT, Scene

OUT = Path(__file__).resolve().parents[1]


def floors() -> Scene:
    s = Scene("floors")
    s.text(420, 0, "The eight floors of PyTorch", size=28, align="center")
    rows = [
        ("1  Python API", "torch.add(a, b), nn.Module"),
        ("2  the binding", "the boundary: Python objects become C++ tensors"),
        ("3  the dispatcher", "picks the kernel for this device and dtype"),
        ("4  autograd", "records what happened, for backward"),
        ("5  the kernel", "the loop that does the arithmetic"),
        ("6  memory", "the caching allocator hands out blocks"),
        ("7  device runtime", "streams; two clocks, Python's and the device's"),
        ("8  the hardware", "CPU cores, GPU streaming multiprocessors"),
    ]
    y = 60
    for i, (name, note) in enumerate(rows):
        s.box(0, y, 660, 58, stroke=INK, bg=INK_SOFT)
        s.text(20, y + 15, name, size=22)
        s.text(250, y + 19, note, size=16, color=CONTEXT)
        y += 72
    # the subject: one call, going down and its result coming back up
    s.arrow([(700, 80), (700, y - 30)], stroke=SUBJECT, width=4)
    s.arrow([(740, y - 30), (740, 80)], stroke=SUBJECT, width=2, dashed=True)
    s.text(760, 90, "one call\ngoes down...", size=18, color=SUBJECT)
    s.text(760, y - 90, "...and its\nresult comes\nback up", size=18, color=SUBJECT)
    s.text(330, y + 6, "each floor only talks to the one above and the one below", size=16, color=CONTEXT,
           align="center")
    return s


def territory() -> Scene:
    s = Scene("territory")
    s.text(300, 0, "Each layer talks only to its neighbours", size=26, align="center")
    names = ["Python API", "the binding", "the dispatcher", "the kernel", "the hardware"]
    boxes = []
    y = 60
    for i, n in enumerate(names):
        subject = n == "the dispatcher"
        b = s.box(160, y, 280, 64, n, size=22, stroke=SUBJECT if subject else INK,
                  bg=SUBJECT_SOFT if subject else INK_SOFT, color=INK, width=3 if subject else 2)
        boxes.append(b)
        y += 130
    for a, b in zip(boxes, boxes[1:]):
        s.arrow([(300, a["y"] + 70), (300, b["y"] - 6)], start="arrow", end="arrow", bind=(a, b))
    # the shortcut that does not exist
    top, kernel = boxes[0], boxes[3]
    s.arrow([(444, top["y"] + 32), (540, top["y"] + 150), (540, kernel["y"] - 60), (444, kernel["y"] + 32)],
            stroke=CONTEXT, dashed=True, rounded=True)
    mid = (top["y"] + kernel["y"]) / 2 + 30
    s.line([(526, mid - 14), (554, mid + 14)], stroke=CONTEXT, width=3)
    s.line([(554, mid - 14), (526, mid + 14)], stroke=CONTEXT, width=3)
    s.text(578, mid - 40, "no shortcut:\na layer never\nskips a floor", size=18, color=CONTEXT)
    s.text(284, boxes[2]["y"] - 50, "called by the layer above", size=16, color=CONTEXT, align="right")
    s.text(284, boxes[2]["y"] + 86, "calls the layer below", size=16, color=CONTEXT, align="right")
    return s


def folder(s: Scene, x: float, y: float, w: float, h: float, name: str, role: str, *,
           stroke: str = INK, bg: str = INK_SOFT) -> dict:
    s.box(x, y - 16, 90, 24, stroke=stroke, bg=bg, rounded=True)
    b = s.box(x, y, w, h, stroke=stroke, bg=bg, rounded=True)
    s.text(x + 18, y + 14, name, size=24, color=INK)
    s.text(x + 18, y + 48, role, size=16, color=CONTEXT)
    return b


def repo_folders() -> Scene:
    s = Scene("repo-folders")
    s.text(380, 0, "Where the code lives", size=28, align="center")
    py = folder(s, 0, 80, 380, 90, "torch/", "Python: the API you import")
    csrc = folder(s, 0, 230, 380, 90, "torch/csrc/", "the bridge: Python <-> C++")
    aten = folder(s, 0, 380, 380, 110, "aten/  c10/", "C++: tensors, kernels,\nthe dispatcher")
    gen = folder(s, 520, 230, 230, 90, "torchgen/", "the code writer", stroke=SUBJECT, bg=SUBJECT_SOFT)
    s.arrow([(190, 174), (190, 210)], bind=(py, csrc))
    s.arrow([(190, 324), (190, 360)], bind=(csrc, aten))
    s.arrow([(516, 275), (384, 275)], stroke=SUBJECT, dashed=True, bind=(gen, csrc))
    s.arrow([(635, 324), (635, 435), (384, 435)], stroke=SUBJECT, dashed=True, bind=(gen, aten))
    s.text(450, 246, "writes", size=16, color=SUBJECT, align="center")
    s.text(510, 445, "writes, at build time", size=16, color=SUBJECT, align="center")
    s.text(635, 110, "native_functions.yaml:", size=16, color=CONTEXT, align="center")
    s.text(635, 132, "every op listed once", size=16, color=CONTEXT, align="center")
    s.arrow([(635, 160), (635, 208)], stroke=CONTEXT, dashed=True)
    return s


def ecosystem() -> Scene:
    s = Scene("ecosystem")
    s.text(420, 0, "Where libraries attach", size=28, align="center")
    floors = ["nn.Module", "training loop", "distributed engine", "eager runtime", "op list"]
    libs = [
        "transformers, diffusers, timm",
        "lightning, accelerate",
        "deepspeed",
        "vllm, sglang",
        "flash-attention, torchvision ops",
    ]
    y = 96
    boxes = []
    for f, lib in zip(floors, libs):
        b = s.box(300, y, 240, 56, f, size=22, bg=INK_SOFT)
        boxes.append(b)
        s.box(600, y + 4, 270, 48, lib, size=16, stroke=CONTEXT, bg=CONTEXT_SOFT, color=INK)
        s.line([(544, y + 28), (596, y + 28)], stroke=CONTEXT)
        y += 80
    # two floors at once
    s.box(20, 236, 200, 56, "unsloth", size=20, stroke=CONTEXT, bg=CONTEXT_SOFT, color=INK)
    s.line([(224, 264), (260, 264), (260, 124), (296, 124)], stroke=CONTEXT)
    s.line([(260, 264), (260, 444), (296, 444)], stroke=CONTEXT)
    s.text(120, 302, "two floors at once:", size=16, color=CONTEXT, align="center")
    s.text(120, 324, "the model and its kernels", size=16, color=CONTEXT, align="center")
    # only the weights file
    w = s.box(300, y + 30, 240, 56, "model.safetensors", size=20, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK,
              width=3)
    s.arrow([(420, y - 20), (420, y + 26)], stroke=SUBJECT, width=3, bind=(boxes[-1], w))
    s.text(432, y + 2, "save()", size=16, color=SUBJECT)
    ext = s.box(600, y + 34, 270, 48, "llama.cpp, MLX", size=18, stroke=CONTEXT, bg="transparent", dashed=True,
                color=INK)
    s.arrow([(544, y + 58), (596, y + 58)], stroke=SUBJECT, dashed=True, bind=(w, ext))
    s.text(735, y + 92, "only the weights file: no PyTorch at all", size=16, color=CONTEXT, align="center")
    s.box(284, 56, 272, y - 46, stroke=INK, dashed=True, rounded=True)
    s.text(300, 64, "PyTorch", size=18, color=INK)
    return s


def two_clocks() -> Scene:
    s = Scene("two-clocks")
    s.text(440, 0, "Two clocks", size=28, align="center")
    s.text(0, 70, "Python's clock", size=20)
    s.text(0, 230, "the device's clock", size=20)
    s.arrow([(190, 84), (900, 84)], stroke=CONTEXT, width=1)
    s.arrow([(190, 244), (900, 244)], stroke=CONTEXT, width=1)
    s.text(900, 96, "time", size=16, color=CONTEXT, align="right")
    ops = [("add", 30, 110), ("mul", 30, 80), ("matmul", 30, 260), ("sum", 30, 70)]
    qx, dx = 200, 240
    for name, q, d in ops:
        subject = name == "matmul"
        stroke, bg = (SUBJECT, SUBJECT_SOFT) if subject else (INK, INK_SOFT)
        s.box(qx, 100, 64, 40, name, size=16, stroke=stroke, bg=bg, color=INK, rounded=True)
        s.box(dx, 190, d, 40, name, size=16, stroke=stroke, bg=bg, color=INK, rounded=True)
        s.line([(qx + 32, 144), (dx + 8, 186)], stroke=SUBJECT if subject else CONTEXT, dashed=True, width=1)
        qx += 74
        dx += d + 8
    s.text(510, 112, "queued: Python moves on at once", size=16, color=CONTEXT)
    s.arrow([(740, 300), (710, 236)], stroke=SUBJECT)
    s.text(620, 304, "matmul really finishes here", size=16, color=SUBJECT)
    s.arrow([(470, 56), (418, 98)], stroke=SUBJECT)
    s.text(476, 40, "matmul() has already returned", size=16, color=SUBJECT)
    return s


def saved_tensors() -> Scene:
    s = Scene("saved-tensors")
    s.text(330, 0, "What backward needs, saved on the way forward", size=24, align="center")
    loss = s.box(230, 60, 200, 50, "loss", size=20, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK, kind="ellipse")
    n1 = s.box(200, 160, 260, 56, "SumBackward0", size=20, bg=INK_SOFT)
    n2 = s.box(200, 280, 260, 56, "AddmmBackward0", size=20, bg=INK_SOFT)
    n3 = s.box(200, 400, 260, 56, "AccumulateGrad", size=20, bg=INK_SOFT)
    leaf = s.box(230, 510, 200, 50, "W.grad", size=20, stroke=INK, bg="transparent")
    s.arrow([(330, 114), (330, 156)], bind=(loss, n1))
    s.arrow([(330, 220), (330, 276)], bind=(n1, n2))
    s.arrow([(330, 340), (330, 396)], bind=(n2, n3))
    s.arrow([(330, 460), (330, 506)], bind=(n3, leaf))
    s.box(540, 250, 190, 44, "saved: x", size=18, stroke=CONTEXT, bg="transparent", dashed=True, color=INK)
    s.box(540, 320, 190, 44, "saved: W.T", size=18, stroke=CONTEXT, bg="transparent", dashed=True, color=INK)
    s.line([(464, 300), (536, 272)], stroke=CONTEXT, dashed=True)
    s.line([(464, 316), (536, 342)], stroke=CONTEXT, dashed=True)
    s.text(635, 380, "recorded during forward,", size=16, color=CONTEXT, align="center")
    s.text(635, 402, "read during backward", size=16, color=CONTEXT, align="center")
    s.arrow([(150, 120), (150, 520)], stroke=SUBJECT, width=3)
    s.text(136, 290, "the gradient\nflows down", size=16, color=SUBJECT, align="right")
    return s


def main() -> None:
    for make, name in ((floors, "floors"), (territory, "territory"), (repo_folders, "repo-folders"),
                       (ecosystem, "ecosystem"), (two_clocks, "two-clocks"), (saved_tensors, "saved-tensors")):
        make().save(OUT / f"{name}.excalidraw")
        print(f"wrote drawings/{name}.excalidraw")


if __name__ == "__main__":
    main()
