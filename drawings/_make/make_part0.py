"""Write Part 0's drawings into drawings/: python -m drawings._make.make_part0 (from the repo root).

The committed .excalidraw files are the source of truth once written: edit them in Excalidraw
freely; rerunning this script overwrites them with the generated originals.

Same sizes as Parts 1 and 2 (issue 20): about 500 units wide, labels of 16 units or more, so that
on a phone's text column (about 360 px) the smallest label still shows at 9 px or more. Wide
layouts are stacked instead: notes go under their names, side labels above or below what they
point at.
"""

from __future__ import annotations

from .kit import (
    CONTEXT,
    CONTEXT_SOFT,
    EXCALIFONT,
    INK,
    INK_SOFT,
    PAPER,
    SUBJECT,
    SUBJECT_SOFT,
    Scene,
    measure,
    write_all,
)

W = 500  # scene width


def _width(text: str, size: float) -> float:
    return measure(text, EXCALIFONT, size, 1.25)[0]


def floors() -> Scene:
    s = Scene("floors")
    s.text(W / 2, 0, "The eight floors of PyTorch", size=28, align="center")
    s.text(W / 2, 42, "on the dispatch path each floor calls the one below", size=16, color=CONTEXT,
           align="center")
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
    top = y = 104
    for name, note in rows:
        s.box(0, y, 418, 64, stroke=INK, bg=INK_SOFT)
        s.text(16, y + 6, name, size=22)
        s.text(16 + _width(name[:3], 22), y + 37, note, size=16, color=CONTEXT)
        y += 74
    bottom = y - 10
    # the subject: one call, going down and its result coming back up
    s.text(488, top - 30, "one call goes down...", size=18, color=SUBJECT, align="right")
    s.arrow([(442, top + 2), (442, bottom - 2)], stroke=SUBJECT, width=4)
    s.arrow([(474, bottom - 2), (474, top + 2)], stroke=SUBJECT, width=2, dashed=True)
    s.text(488, bottom + 8, "...and its result comes back up", size=18, color=SUBJECT, align="right")
    return s


def territory() -> Scene:
    s = Scene("territory")
    s.text(W / 2, 0, "The territory:\nlayers along the dispatch path", size=24, align="center")
    bands = [
        ("Python API", ["torch.*", "nn.Module", "optim"]),
        ("The boundary", ["Python <-> C++ bindings"]),
        ("Dispatcher", ["Autograd", "Autocast", "Functionalize", "Python mode"]),
        ("kernels, per backend", ["CPU", "CUDA", "MPS", "Meta"]),
        ("allocators and runtimes", ["caching allocator", "streams, events"]),
    ]
    bw, pad, gap = 336, 12, 48
    y = 80
    boxes = []
    for name, parts in bands:
        subject = name == "Dispatcher"
        # the parts, in rows that fit the band
        rows, row, used = [], [], 0.0
        for part in parts:
            w = max(64, _width(part, 16) + 22)
            if row and used + w > bw - 2 * pad:
                rows.append(row)
                row, used = [], 0.0
            row.append((part, w))
            used += w + 10
        rows.append(row)
        head = 52 if subject else 44  # the subject's header also holds a note
        h = head + len(rows) * 44 + 2
        b = s.box(0, y, bw, h, stroke=SUBJECT if subject else INK, bg=SUBJECT_SOFT if subject else INK_SOFT,
                  width=3 if subject else 2)
        boxes.append(b)
        s.text(pad, y + 8, name, size=22)
        for r, row in enumerate(rows):
            x = pad
            for part, w in row:
                s.box(x, y + head + r * 44, w, 34, part, size=16, stroke=CONTEXT, bg=PAPER, color=INK)
                x += w + 10
        y += h + gap
    for a, b in zip(boxes, boxes[1:]):
        s.arrow([(60, a["y"] + a["height"] + 4), (60, b["y"] - 4)], bind=(a, b))
        s.arrow([(100, b["y"] - 4), (100, a["y"] + a["height"] + 4)], bind=(b, a))
    first = boxes[0]
    s.text(116, first["y"] + first["height"] + 4, "calls go down,\nresults come back up", size=16, color=CONTEXT)
    disp = boxes[2]
    s.text(bw - pad, disp["y"] + 8, "feature layers\ntake turns", size=16, color=SUBJECT, align="right")
    # the shortcut that does not exist
    top, kernel = boxes[0], boxes[3]
    cx = bw + 40
    s.arrow([(bw + 4, top["y"] + 40), (cx, top["y"] + 150), (cx, kernel["y"] - 60), (bw + 4, kernel["y"] + 40)],
            stroke=CONTEXT, dashed=True, rounded=True)
    mid = (top["y"] + 40 + kernel["y"] + 40) / 2
    s.line([(cx - 14, mid - 14), (cx + 14, mid + 14)], stroke=CONTEXT, width=3)
    s.line([(cx + 14, mid - 14), (cx - 14, mid + 14)], stroke=CONTEXT, width=3)
    s.text(cx + 16, mid + 24, "dispatch path:\nthe call goes\nlayer by layer", size=16, color=CONTEXT)
    return s


def two_clocks() -> Scene:
    s = Scene("two-clocks")
    s.text(W / 2, 0, "Two clocks", size=28, align="center")
    s.text(W / 2, 40, "each op is queued; Python moves on at once", size=16, color=CONTEXT, align="center")
    s.text(0, 72, "Python's clock", size=20)
    s.arrow([(0, 104), (W, 104)], stroke=CONTEXT, width=1)
    s.text(W, 74, "time", size=16, color=CONTEXT, align="right")
    qy, dy = 114, 222
    ops = [("add", 46, 64), ("mul", 46, 48), ("matmul", 64, 180), ("sum", 46, 52)]
    qx, dx = 0, 20
    for name, q, d in ops:
        subject = name == "matmul"
        stroke, bg = (SUBJECT, SUBJECT_SOFT) if subject else (INK, INK_SOFT)
        s.box(qx, qy, q, 36, name, size=16, stroke=stroke, bg=bg, color=INK, rounded=True)
        s.box(dx, dy, d, 36, name, size=16, stroke=stroke, bg=bg, color=INK, rounded=True)
        s.line([(qx + q / 2, qy + 40), (dx + 8, dy - 4)], stroke=SUBJECT if subject else CONTEXT, dashed=True,
               width=1)
        if subject:
            matmul_q, matmul_end = qx + q / 2, dx + d
        qx += q + 6
        dx += d + 6
    # .item(): Python has to wait until the device is done
    s.box(qx, qy, 64, 36, ".item()", size=16, stroke=INK, bg=INK_SOFT, color=INK, rounded=True)
    wait_end = dx - 6
    s.box(qx + 68, qy + 4, wait_end - qx - 72, 28, "waiting", size=16, stroke=CONTEXT, bg="transparent",
          dashed=True, color=CONTEXT, rounded=True)
    s.line([(wait_end, qy + 44), (wait_end, dy - 4)], stroke=INK, dashed=True, width=1)
    s.box(wait_end + 8, qy, 84, 36, "next line", size=16, stroke=INK, bg=INK_SOFT, color=INK, rounded=True)
    s.text(wait_end + 8, qy + 48, "a read waits\nfor the device", size=16, color=INK)
    s.arrow([(0, 268), (W, 268)], stroke=CONTEXT, width=1)
    s.text(0, 276, "the device's clock", size=20)
    s.arrow([(216, 80), (matmul_q + 6, qy - 4)], stroke=SUBJECT)
    s.text(222, 68, "matmul() has already returned", size=16, color=SUBJECT)
    s.arrow([(matmul_end + 20, 304), (matmul_end - 2, dy + 40)], stroke=SUBJECT)
    s.text(matmul_end + 24, 300, "matmul really\nfinishes here", size=16, color=SUBJECT)
    return s


def saved_tensors() -> Scene:
    s = Scene("saved-tensors")
    s.text(W / 2, 0, "The graph backward walks,\nand what it saved", size=24, align="center")
    s.text(W / 2, 66, "model: fc2(relu(fc1(x))).sum()", size=16, color=CONTEXT, align="center")
    sx, sw = 172, 166
    cx = sx + sw / 2
    loss = s.box(cx - 75, 100, 150, 46, "loss", size=20, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK,
                 kind="ellipse")
    spine = [("SumBackward0", 176), ("AddmmBackward0", 268), ("ReluBackward0", 400), ("AddmmBackward0", 512)]
    nodes = [s.box(sx, y, sw, 48, name, size=18, bg=INK_SOFT) for name, y in spine]
    prev = loss
    for n in nodes:
        s.arrow([(cx, prev["y"] + prev["height"] + 4), (cx, n["y"] - 4)], bind=(prev, n))
        prev = n
    # AccumulateGrad at each parameter (left)
    for node, layer in ((nodes[1], "fc2"), (nodes[3], "fc1")):
        y = node["y"] + 24 - 66
        for param in ("weight", "bias"):
            label = f"AccumulateGrad\n{layer}.weight\n(via TBackward0)" if param == "weight" else \
                f"AccumulateGrad\n{layer}.bias"
            h = 72 if param == "weight" else 52
            acc = s.box(0, y, 154, h, label, size=16, bg=PAPER)
            s.arrow([(sx - 4, node["y"] + 24), (158, y + h / 2)], bind=(node, acc))
            y += h + 8
    # what each node saved (right, dashed: recorded during forward)
    saved = {1: ["saved: h", "saved:\nfc2.weight.T"], 2: ["saved: result"], 3: ["saved: x"]}
    for i, items in saved.items():
        node = nodes[i]
        heights = [54 if "\n" in label else 40 for label in items]
        y = node["y"] + 24 - (sum(heights) + 8 * (len(items) - 1)) / 2
        for label, h in zip(items, heights):
            s.box(358, y, 120, h, label, size=16, stroke=CONTEXT, bg="transparent", dashed=True, color=INK)
            s.line([(sx + sw + 4, node["y"] + 24), (354, y + h / 2)], stroke=CONTEXT, dashed=True)
            y += h + 8
    s.text(W, 572, "recorded during forward,\nread during backward", size=16, color=CONTEXT, align="right")
    s.text(W, 100, "the gradient\nflows down", size=16, color=SUBJECT, align="right")
    s.arrow([(494, 148), (494, 560)], stroke=SUBJECT, width=3)
    return s


SCENES = ((floors, "floors"), (territory, "territory"), (two_clocks, "two-clocks"), (saved_tensors, "saved-tensors"))


def main() -> None:
    write_all(SCENES)


if __name__ == "__main__":
    main()
