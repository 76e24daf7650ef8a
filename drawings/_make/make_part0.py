"""Write Part 0's drawings into drawings/: python -m drawings._make.make_part0 (from the repo root).

The committed .excalidraw files are the source of truth once written: edit them in Excalidraw
freely; rerunning this script overwrites them with the generated originals.
"""

from __future__ import annotations


from .kit import CONTEXT, CONTEXT_SOFT, INK, INK_SOFT, PAPER, SUBJECT, SUBJECT_SOFT, Scene, write_all



def floors() -> Scene:
    s = Scene("floors")
    s.text(420, 0, "The eight floors of PyTorch", size=28, align="center")
    rows = [
        ("1  Python API", "torch.add(a, b), nn.Module"),
        ("2  The boundary", "Python objects become C++ tensors"),
        ("3  Dispatcher", "picks the kernel by dispatch key, not dtype"),
        ("4  Autograd", "records what happened, for backward"),
        ("5  Kernel", "the loop that does the arithmetic"),
        ("6  Memory", "an allocator hands out blocks; CUDA's caches"),
        ("7  Device runtime", "streams; two clocks, Python's and the device's"),
        ("8  The chip", "CPU cores, GPU streaming multiprocessors"),
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
    s.text(330, y + 6, "on the dispatch path each floor calls the one below", size=16, color=CONTEXT,
           align="center")
    return s


def territory() -> Scene:
    s = Scene("territory")
    s.text(330, 0, "The territory: layers along the dispatch path", size=26, align="center")
    bands = [
        ("Python API", ["torch.*", "nn.Module", "optim"]),
        ("The boundary", ["Python <-> C++ bindings"]),
        ("Dispatcher", ["Autograd", "Autocast", "Functionalize", "Python mode"]),
        ("kernels, per backend", ["CPU", "CUDA", "MPS", "Meta"]),
        ("allocators and runtimes", ["caching allocator", "streams, events"]),
    ]
    y = 60
    boxes = []
    for name, parts in bands:
        subject = name == "Dispatcher"
        b = s.box(0, y, 660, 92, stroke=SUBJECT if subject else INK, bg=SUBJECT_SOFT if subject else INK_SOFT,
                  width=3 if subject else 2)
        boxes.append(b)
        s.text(18, y + 10, name, size=22)
        x = 18
        for part in parts:
            w = max(96, 20 + len(part) * 9.5)
            s.box(x, y + 44, w, 36, part, size=16, stroke=CONTEXT, bg=PAPER, color=INK)
            x += w + 12
        y += 128
    for a, b in zip(boxes, boxes[1:]):
        s.arrow([(310, a["y"] + 96), (310, b["y"] - 4)], bind=(a, b))
        s.arrow([(350, b["y"] - 4), (350, a["y"] + 96)], bind=(b, a))
    s.text(364, boxes[0]["y"] + 103, "calls go down, results come back up", size=16, color=CONTEXT)
    s.text(642, boxes[2]["y"] + 12, "feature layers take turns", size=16, color=SUBJECT, align="right")
    # the shortcut that does not exist
    top, kernel = boxes[0], boxes[3]
    s.arrow([(664, top["y"] + 46), (760, top["y"] + 170), (760, kernel["y"] - 70), (664, kernel["y"] + 46)],
            stroke=CONTEXT, dashed=True, rounded=True)
    mid = (top["y"] + kernel["y"]) / 2 + 46
    s.line([(746, mid - 14), (774, mid + 14)], stroke=CONTEXT, width=3)
    s.line([(774, mid - 14), (746, mid + 14)], stroke=CONTEXT, width=3)
    s.text(792, mid - 40, "dispatch path:\nthe call goes\nlayer by layer", size=18, color=CONTEXT)
    return s


def repo_folders() -> Scene:
    s = Scene("repo-folders")
    s.text(360, 0, "The repository, and the floor each folder serves", size=26, align="center")
    s.text(0, 56, "pytorch/", size=24)
    rows = [
        ("torch/", "floor 1: the Python API you import", INK, INK_SOFT),
        ("torch/csrc/", "floors 2 and 4: bindings, autograd", INK, INK_SOFT),
        ("aten/", "floors 3 and 5: operators, the dispatcher, kernels", INK, INK_SOFT),
        ("c10/", "floors 3, 6, 7: the tensor core, allocator, streams", INK, INK_SOFT),
        ("torchgen/", "the code writer: generates floors 2 and 3", SUBJECT, SUBJECT_SOFT),
    ]
    y = 110
    folders = []
    for name, role, stroke, bg in rows:
        s.line([(20, y - 20), (20, y + 26), (56, y + 26)], stroke=CONTEXT)
        s.box(64, y - 4, 60, 14, stroke=stroke, bg=bg, rounded=True)
        f = s.box(64, y + 6, 190, 44, name, size=20, stroke=stroke, bg=bg, color=INK)
        folders.append(f)
        s.text(280, y + 16, role, size=18, color=SUBJECT if stroke == SUBJECT else CONTEXT)
        y += 84
    gen, csrc, aten = folders[4], folders[1], folders[2]
    s.arrow([(676, gen["y"] + 22), (740, gen["y"] + 22), (740, csrc["y"] + 22), (700, csrc["y"] + 22)],
            stroke=SUBJECT, dashed=True)
    s.arrow([(740, aten["y"] + 22), (720, aten["y"] + 22)], stroke=SUBJECT, dashed=True)
    s.text(752, csrc["y"] + 60, "generated\nat build time\nfrom native_\nfunctions.yaml", size=16, color=SUBJECT)
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
    top = boxes[0]  # nn.Module holds the weights; save() writes them out
    s.arrow([(296, top["y"] + 12), (14, top["y"] + 12), (14, w["y"] + 28), (296, w["y"] + 28)], stroke=SUBJECT,
            width=3, bind=(top, w))
    s.text(150, w["y"] - 4, "save(): the weights", size=16, color=SUBJECT, align="center")
    ext = s.box(600, y + 34, 270, 48, "llama.cpp, MLX", size=18, stroke=CONTEXT, bg="transparent", dashed=True,
                color=INK)
    s.arrow([(544, y + 58), (596, y + 58)], stroke=SUBJECT, dashed=True, bind=(w, ext))
    s.text(735, y + 92, "only the weights file: no PyTorch at all", size=16, color=CONTEXT, align="center")
    s.box(284, 56, 272, y - 46, stroke=INK, dashed=True, rounded=True)
    s.text(300, 64, "PyTorch", size=18, color=INK)
    return s


def two_clocks() -> Scene:
    s = Scene("two-clocks")
    s.text(470, 0, "Two clocks", size=28, align="center")
    s.text(0, 70, "Python's clock", size=20)
    s.text(0, 250, "the device's clock", size=20)
    s.arrow([(190, 84), (960, 84)], stroke=CONTEXT, width=1)
    s.arrow([(190, 264), (960, 264)], stroke=CONTEXT, width=1)
    s.text(960, 96, "time", size=16, color=CONTEXT, align="right")
    ops = [("add", 110), ("mul", 80), ("matmul", 250), ("sum", 70)]
    qx, dx = 200, 240
    for name, d in ops:
        subject = name == "matmul"
        stroke, bg = (SUBJECT, SUBJECT_SOFT) if subject else (INK, INK_SOFT)
        s.box(qx, 100, 64, 40, name, size=16, stroke=stroke, bg=bg, color=INK, rounded=True)
        s.box(dx, 210, d, 40, name, size=16, stroke=stroke, bg=bg, color=INK, rounded=True)
        s.line([(qx + 32, 144), (dx + 8, 206)], stroke=SUBJECT if subject else CONTEXT, dashed=True, width=1)
        qx += 74
        dx += d + 8
    # .item(): Python has to wait until the device is done
    item = s.box(qx, 100, 76, 40, ".item()", size=16, stroke=INK, bg=INK_SOFT, color=INK, rounded=True)
    wait_end = dx
    s.box(qx + 80, 106, wait_end - qx - 80, 28, "waiting", size=14, stroke=CONTEXT, bg="transparent",
          dashed=True, color=CONTEXT, rounded=True)
    s.line([(wait_end, 150), (wait_end, 206)], stroke=INK, dashed=True, width=1)
    s.box(wait_end + 12, 100, 110, 40, "next line", size=16, stroke=INK, bg=INK_SOFT, color=INK, rounded=True)
    s.text(0, 106, "each op is queued;\nPython moves on\nat once", size=16, color=CONTEXT)
    s.arrow([(676, 316), (694, 256)], stroke=SUBJECT)
    s.text(540, 320, "matmul really finishes here", size=16, color=SUBJECT)
    s.arrow([(470, 52), (418, 96)], stroke=SUBJECT)
    s.text(476, 36, "matmul() has already returned", size=16, color=SUBJECT)
    s.text(wait_end + 10, 156, "a read waits\nfor the device", size=16, color=INK)
    del item
    return s


def saved_tensors() -> Scene:
    s = Scene("saved-tensors")
    s.text(400, 0, "The graph backward walks, and what it saved", size=26, align="center")
    s.text(400, 34, "model: fc2(relu(fc1(x))).sum()", size=16, color=CONTEXT, align="center")
    loss = s.box(310, 70, 180, 48, "loss", size=20, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK, kind="ellipse")
    spine = [("SumBackward0", 160), ("AddmmBackward0", 260), ("ReluBackward0", 380), ("AddmmBackward0", 500)]
    nodes = []
    for name, y in spine:
        nodes.append(s.box(280, y, 240, 52, name, size=20, bg=INK_SOFT))
    prev = loss
    for n in nodes:
        s.arrow([(400, prev["y"] + prev["height"] + 4), (400, n["y"] - 4)], bind=(prev, n))
        prev = n
    # AccumulateGrad at each parameter (left)
    for node, layer in ((nodes[1], "fc2"), (nodes[3], "fc1")):
        for k, param in enumerate(("weight", "bias")):
            y = node["y"] - 22 + k * 58
            via = " (via TBackward0)" if param == "weight" else ""
            acc = s.box(0, y, 220, 48, f"AccumulateGrad\n{layer}.{param}{via}", size=14, bg=PAPER)
            s.arrow([(276, node["y"] + 26), (224, y + 24)], bind=(node, acc))
    # what each node saved (right, dashed: recorded during forward)
    saved = {1: ["saved: h", "saved: fc2.weight.T"], 2: ["saved: result"], 3: ["saved: x"]}
    for i, items in saved.items():
        node = nodes[i]
        for k, label in enumerate(items):
            y = node["y"] + 4 + (k - (len(items) - 1) / 2) * 52
            b = s.box(590, y, 190, 44, label, size=16, stroke=CONTEXT, bg="transparent", dashed=True, color=INK)
            s.line([(524, node["y"] + 26), (586, y + 22)], stroke=CONTEXT, dashed=True)
            del b
    s.text(685, 580, "recorded during forward,\nread during backward", size=16, color=CONTEXT, align="center")
    s.arrow([(820, 90), (820, 560)], stroke=SUBJECT, width=3)
    s.text(836, 290, "the gradient\nflows down", size=16, color=SUBJECT)
    return s


SCENES = ((floors, "floors"), (territory, "territory"), (repo_folders, "repo-folders"),
          (ecosystem, "ecosystem"), (two_clocks, "two-clocks"), (saved_tensors, "saved-tensors"))


def main() -> None:
    write_all(SCENES)


if __name__ == "__main__":
    main()
