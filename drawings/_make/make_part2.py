"""Write Part 2's drawings into drawings/: python -m drawings._make.make_part2 (from the repo root).

The committed .excalidraw files are the source of truth once written: edit them in Excalidraw
freely; rerunning this script overwrites them with the generated originals.

Same rules as Part 1: about 500 units wide, labels of 18 units or more (side notes 16). What they
show is taken from the proofs' records: graph_anatomy, saved_bytes, engine_order,
version_counter, copy_slices, grad_switches and checkpoint_cost.
"""

from __future__ import annotations


from .kit import CONTEXT, CONTEXT_SOFT, INK, INK_SOFT, PAPER, SUBJECT, SUBJECT_SOFT, Scene, write_all

W = 500


def node(s: Scene, x: float, y: float, w: float, label: str, *, hot: bool = False, dashed: bool = False,
         h: float = 44, size: float = 18) -> dict:
    """A backward node: orange when it is the subject, dashed when it is implied or skipped."""
    return s.box(x, y, w, h, label, size=size, stroke=SUBJECT if hot else (CONTEXT if dashed else INK),
                 bg=SUBJECT_SOFT if hot else (PAPER if dashed else INK_SOFT), dashed=dashed, color=INK)


def graph() -> Scene:
    """The graph of loss = (relu(x.mm(W)) * v).sum(): nodes, edges, saved slots."""
    s = Scene("part2-graph")
    s.text(W / 2, 0, "The graph loss.grad_fn leads to", size=24, align="center")
    x, w = 10, 200
    rows = [("SumBackward0  3", "saves no tensor"), ("MulBackward0  2", "saves r [2, 3], v [3]"),
            ("ReluBackward0  1", "saves result [2, 3]"), ("MmBackward0  0", "saves x [2, 4]")]
    boxes = []
    for i, (label, note) in enumerate(rows):
        y = 48 + i * 76
        boxes.append(node(s, x, y, w, label, hot=(i == 3)))
        s.text(x + w + 16, y + 2, note, size=18, color=SUBJECT if i == 3 else INK)
    for a, b in zip(boxes, boxes[1:]):
        s.arrow([(x + w / 2, a["y"] + 48), (x + w / 2, b["y"] - 4)], bind=(a, b))
    mm = boxes[3]
    s.text(x + w + 16, mm["y"] + 26, "mat2 slot: empty", size=16, color=CONTEXT)
    acc_w = node(s, 10, 390, 200, "AccumulateGrad", h=44)
    s.text(110, 440, "into W.grad", size=16, color=CONTEXT, align="center")
    s.arrow([(x + w / 2, mm["y"] + 48), (110, 386)], bind=(mm, acc_w))
    acc_v = node(s, 290, 390, 200, "AccumulateGrad", h=44)
    s.text(390, 440, "into v.grad", size=16, color=CONTEXT, align="center")
    mul = boxes[1]
    s.arrow([(x + w + 4, mul["y"] + 38), (470, mul["y"] + 38), (470, 386)], bind=(mul, acc_v))
    none = s.box(250, 338, 150, 36, "x: no edge", size=16, stroke=CONTEXT, bg=PAPER, dashed=True, color=CONTEXT)
    s.arrow([(x + w - 10, mm["y"] + 48), (246, 356)], stroke=CONTEXT, dashed=True, bind=(mm, none))
    s.text(W / 2, 476, "the number in a node: its sequence number", size=16, color=CONTEXT, align="center")
    return s


def saved_slots() -> Scene:
    """MmBackward0's two slots for y = x.mm(W), filled or empty by which inputs need a gradient."""
    s = Scene("part2-saved-slots")
    s.text(W / 2, 0, "What MmBackward0 keeps", size=24, align="center")
    for col, (title, x_needs) in enumerate((("only W needs a grad", False), ("x and W need grads", True))):
        x0 = 10 + col * 250
        s.text(x0 + 115, 44, title, size=18, align="center")
        node(s, x0, 80, 230, "MmBackward0", hot=True)
        s.box(x0, 150, 110, 70, "self\n= x", size=18, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK)
        if x_needs:
            s.box(x0 + 120, 150, 110, 70, "mat2\n= W", size=18, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK)
        else:
            s.box(x0 + 120, 150, 110, 70, "mat2\nempty", size=18, stroke=CONTEXT, bg=PAPER, dashed=True,
                  color=CONTEXT)
        s.line([(x0 + 55, 128), (x0 + 55, 146)], stroke=INK)
        s.line([(x0 + 175, 128), (x0 + 175, 146)], stroke=CONTEXT if not x_needs else INK, dashed=not x_needs)
    s.text(W / 2, 246, "W's gradient reads x; x's gradient reads W.", size=18, align="center")
    s.text(W / 2, 276, "A slot is filled only for a formula that will run.", size=16, color=CONTEXT,
           align="center")
    return s


def ready_queue() -> Scene:
    """The engine's loop: count dependencies, pop the newest ready node, feed its successors."""
    s = Scene("part2-ready-queue")
    s.text(W / 2, 0, "The engine's loop", size=24, align="center")
    count = s.box(100, 44, 300, 50, "count the edges into each node", size=18, bg=INK_SOFT)
    queue = s.box(60, 130, 380, 64, "ready queue:\nhighest sequence number first", size=18, stroke=SUBJECT,
                  bg=SUBJECT_SOFT, color=INK)
    run = s.box(100, 232, 300, 50, "run the node's formula", size=18, bg=INK_SOFT)
    buf = s.box(40, 320, 420, 64, "add each gradient into the next\nnode's buffer; count one down", size=18,
                bg=INK_SOFT)
    s.arrow([(250, 98), (250, 126)], bind=(count, queue))
    s.arrow([(250, 198), (250, 228)], bind=(queue, run))
    s.arrow([(250, 286), (250, 316)], bind=(run, buf))
    s.arrow([(464, 352), (490, 352), (490, 162), (444, 162)], stroke=SUBJECT, bind=(buf, queue))
    s.text(482, 236, "at 0:\nready", size=16, color=SUBJECT, align="right")
    s.text(W / 2, 402, "AccumulateGrad: the largest number, so it runs", size=16, color=CONTEXT, align="center")
    s.text(W / 2, 424, "as soon as its gradient is complete", size=16, color=CONTEXT, align="center")
    return s


def version_check() -> Scene:
    """sigmoid saves its output at version 0; an in-place write makes it 1; backward compares."""
    s = Scene("part2-version-check")
    s.text(W / 2, 0, "A saved slot remembers a version", size=24, align="center")
    steps = [("s = a.sigmoid()", "node saves s at version 0", INK),
             ("s.mul_(2)", "s is now at version 1", SUBJECT),
             ("s.sum().backward()", "unpack s: 1, expected 0", SUBJECT)]
    for i, (code, note, colour) in enumerate(steps):
        y = 50 + i * 90
        b = s.box(10, y, 220, 56, code, size=18, stroke=colour, bg=SUBJECT_SOFT if colour == SUBJECT else INK_SOFT,
                  color=INK)
        s.text(246, y + 16, note, size=18, color=colour)
        if i:
            s.arrow([(120, y - 30), (120, y - 4)], bind=(None, b))
    err = s.box(90, 326, 320, 50, "RuntimeError: modified by an\ninplace operation", size=16, stroke=SUBJECT,
                bg=PAPER, color=INK)
    s.arrow([(120, 280), (160, 322)], stroke=SUBJECT, bind=(None, err))
    s.text(W / 2, 392, "only saved tensors are checked, when backward unpacks them", size=16, color=CONTEXT,
           align="center")
    return s


def copy_slices() -> Scene:
    """v = y[1:3]; v.mul_(10): y's history is rewritten through CopySlices."""
    s = Scene("part2-copy-slices")
    s.text(W / 2, 0, "Writing into a view", size=24, align="center")
    s.text(120, 40, "before v.mul_(10)", size=18, align="center")
    y_b = node(s, 10, 76, 220, "y: CloneBackward0")
    v_b = node(s, 10, 150, 220, "v: SliceBackward0")
    s.arrow([(120, 148), (120, 124)], bind=(v_b, y_b))
    s.text(375, 40, "after", size=18, align="center")
    cs = node(s, 260, 76, 230, "y: CopySlices", hot=True)
    wrapped = s.box(290, 132, 170, 40, "MulBackward0", size=16, stroke=SUBJECT, bg=PAPER, dashed=True, color=INK)
    s.text(365, 176, "wraps the write's backward", size=16, color=SUBJECT, align="center")
    clone = node(s, 260, 214, 230, "CloneBackward0")
    s.arrow([(484, 124), (484, 210)], bind=(cs, clone))
    v_a = node(s, 260, 300, 230, "v: AsStridedBackward0")
    s.arrow([(375, 296), (375, 262)], stroke=CONTEXT, dashed=True, bind=(v_a, clone))
    s.text(375, 350, "rebuilt from the base", size=16, color=CONTEXT, align="center")
    del wrapped
    s.text(120, 240, "x.grad after", size=18, align="center")
    s.text(120, 268, "y.sum().backward():", size=18, align="center")
    s.text(120, 300, "[1, 10, 10, 1]", size=20, color=SUBJECT, align="center")
    return s


def switches() -> Scene:
    """Three dispatch paths for w * 2: recording, no_grad (runs, records nothing), inference_mode (skipped)."""
    s = Scene("part2-switches")
    s.text(W / 2, 0, "Three ways down for w * 2", size=24, align="center")
    lanes = [("grad on", "AutogradCPU:\nrecords a node", False, True),
             ("no_grad", "AutogradCPU:\nrecords nothing", False, False),
             ("inference_mode", "autograd keys\nexcluded", True, False)]
    for i, (title, layer, skipped, hot) in enumerate(lanes):
        x0 = 10 + i * 166
        s.text(x0 + 75, 44, title, size=18, align="center", color=SUBJECT if hot else INK)
        a = s.box(x0, 80, 150, 70, layer, size=16, stroke=CONTEXT if skipped else (SUBJECT if hot else INK),
                  bg=PAPER if skipped else (SUBJECT_SOFT if hot else INK_SOFT), dashed=skipped or not hot,
                  color=CONTEXT if skipped else INK)
        cpu = s.box(x0, 200, 150, 50, "CPU kernel", size=18, bg=INK_SOFT)
        s.arrow([(x0 + 75, 154), (x0 + 75, 196)], bind=(a, cpu), dashed=skipped,
                stroke=CONTEXT if skipped else INK)
    s.text(W / 2, 272, "no_grad: a flag the kernel reads.", size=18, align="center")
    s.text(W / 2, 300, "inference_mode: the layer is off the path.", size=18, align="center")
    return s


def checkpoint() -> Scene:
    """Four blocks plain and checkpointed: what each keeps, and the second forward in backward."""
    s = Scene("part2-checkpoint")
    s.text(W / 2, 0, "Checkpointing: keep inputs, rerun", size=24, align="center")
    for row, (title, keep_inside) in enumerate((("plain", True), ("checkpointed", False))):
        y = 50 + row * 170
        s.text(10, y, title, size=20, color=SUBJECT if not keep_inside else INK)
        for k in range(4):
            x = 10 + k * 122
            s.box(x, y + 34, 110, 56, f"block {k + 1}", size=18, bg=INK_SOFT)
            s.box(x, y + 98, 40, 30, "in", size=16, stroke=SUBJECT, bg=SUBJECT_SOFT, rounded=False, color=INK)
            s.box(x + 48, y + 98, 62, 30, "inside", size=16, stroke=SUBJECT if keep_inside else CONTEXT,
                  bg=SUBJECT_SOFT if keep_inside else PAPER, dashed=not keep_inside, rounded=False,
                  color=INK if keep_inside else CONTEXT)
    s.arrow([(460, 354), (460, 380), (60, 380), (60, 354)], stroke=SUBJECT, label="backward reruns each block",
            size=16)
    s.text(W / 2, 404, "kept: 17 block outputs plain, 9 checkpointed", size=16, color=CONTEXT, align="center")
    return s


SCENES = (
    (graph, "part2-graph"),
    (saved_slots, "part2-saved-slots"),
    (ready_queue, "part2-ready-queue"),
    (version_check, "part2-version-check"),
    (copy_slices, "part2-copy-slices"),
    (switches, "part2-switches"),
    (checkpoint, "part2-checkpoint"),
)


def main() -> None:
    write_all(SCENES)


if __name__ == "__main__":
    main()
