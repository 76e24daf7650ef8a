"""Write Part 1's drawings into drawings/: python -m drawings._make.make_part1 (from the repo root).

The committed .excalidraw files are the source of truth once written: edit them in Excalidraw
freely; rerunning this script overwrites them with the generated originals.

Every scene is about 700 units wide, so that it shows near its natural size in the text column,
and no label is smaller than 16 units.
"""

from __future__ import annotations

from pathlib import Path

from .kit import CONTEXT, CONTEXT_SOFT, INK, INK_SOFT, PAPER, SUBJECT, SUBJECT_SOFT, Scene

OUT = Path(__file__).resolve().parents[1]
CELL = 52  # one storage element


def cells(s: Scene, x: float, y: float, labels: list[str], *, stroke: str = INK, bg: str = INK_SOFT,
          dashed: bool = False, size: float = 18, w: float = CELL, h: float = 44,
          highlight: set[int] | None = None) -> list[dict]:
    """A row of storage cells, left to right; ``highlight`` marks cells in the subject colour."""
    out = []
    for i, label in enumerate(labels):
        hot = highlight is not None and i in highlight
        out.append(s.box(x + i * w, y, w, h, label, size=size, stroke=SUBJECT if hot else stroke,
                         bg=SUBJECT_SOFT if hot else bg, dashed=dashed, rounded=False, color=INK))
    return out


def grid(s: Scene, x: float, y: float, rows: list[list[str]], *, stroke: str = INK, bg: str = PAPER,
         dashed: bool = False, size: float = 18, w: float = CELL, h: float = 44) -> list[list[dict]]:
    return [cells(s, x, y + r * h, row, stroke=stroke, bg=bg, dashed=dashed, size=size, w=w, h=h)
            for r, row in enumerate(rows)]


def storage_header() -> Scene:
    """Two headers, one storage: the grid and its transpose read the same twelve numbers."""
    s = Scene("part1-storage-header")
    s.text(360, 0, "Two headers, one storage", size=26, align="center")
    heads = [
        ("m", "size (3, 4)\nstride (4, 1)\noffset 0", 0),
        ("m.t()", "size (4, 3)\nstride (1, 4)\noffset 0", 380),
    ]
    boxes = []
    for name, body, x in heads:
        b = s.box(x, 56, 330, 124, stroke=INK, bg=INK_SOFT)
        s.text(x + 18, 66, name, size=22)
        s.text(x + 18, 100, body, size=18, color=INK)
        s.text(x + 190, 100, "float32\ncpu", size=18, color=CONTEXT)
        boxes.append(b)
    x0 = (720 - 12 * CELL) / 2
    store = cells(s, x0, 290, [str(i) for i in range(12)], stroke=SUBJECT, bg=SUBJECT_SOFT)
    for b, end in zip(boxes, (x0 + CELL * 0.35, x0 + CELL * 0.7)):
        s.arrow([(b["x"] + 120, 184), (end, 284)], stroke=INK)
    s.text(x0, 344, "storage: 12 float32 = 48 bytes, one flat block", size=18, color=SUBJECT)
    s.text(560, 210, "both start at element 0;\nthe strides say how\nto walk from there", size=16,
           color=CONTEXT, align="center")
    del store
    return s


def strides_walk() -> Scene:
    """A 2 x 3 grid and the flat storage under it: +1 to step right, +3 to step down."""
    s = Scene("part1-strides-walk")
    s.text(360, 0, "Strides: how far to move in storage", size=26, align="center")
    gx, gy = 110, 90
    grid(s, gx, gy, [["0", "1", "2"], ["3", "4", "5"]], bg=INK_SOFT)
    s.text(gx, gy + 100, "size (2, 3)\nstride (3, 1)", size=18)
    # the two steps, on the grid
    s.arrow([(gx + CELL / 2, gy - 12), (gx + CELL * 1.5, gy - 12)], stroke=SUBJECT, width=3)
    s.text(gx + CELL * 1.7, gy - 26, "right", size=16, color=SUBJECT)
    s.arrow([(gx - 12, gy + 22), (gx - 12, gy + 66)], stroke=SUBJECT, width=3)
    s.text(gx - 20, gy + 32, "down", size=16, color=SUBJECT, align="right")
    # the storage, with the same steps as jumps
    x0, y0 = 330, 120
    cells(s, x0, y0, [str(i) for i in range(6)], stroke=INK, bg=INK_SOFT)
    s.text(x0 + 6 * CELL + 10, y0 + 12, "storage", size=16, color=CONTEXT)
    s.arrow([(x0 + CELL / 2, y0 - 6), (x0 + CELL, y0 - 34), (x0 + CELL * 1.5, y0 - 6)],
            stroke=SUBJECT, width=3, rounded=True)
    s.text(x0 + CELL * 1.6, y0 - 50, "right: +1", size=18, color=SUBJECT)
    s.arrow([(x0 + CELL / 2, y0 + 50), (x0 + CELL * 2, y0 + 100), (x0 + CELL * 3.5, y0 + 50)],
            stroke=SUBJECT, width=3, rounded=True)
    s.text(x0 + CELL * 2, y0 + 104, "down: +3", size=18, color=SUBJECT, align="center")
    s.text(360, 290, "element [i, j] lives at  offset + 3·i + 1·j", size=20, align="center")
    return s


def transpose() -> Scene:
    """The same six numbers read in two orders: t() swaps the strides, nothing moves."""
    s = Scene("part1-transpose")
    s.text(360, 0, "Transpose: same bytes, swapped strides", size=26, align="center")
    grid(s, 60, 60, [["0", "1", "2"], ["3", "4", "5"]])
    s.text(60, 156, "m: stride (3, 1)", size=18)
    grid(s, 420, 60, [["0", "3"], ["1", "4"], ["2", "5"]], stroke=SUBJECT, bg=SUBJECT_SOFT)
    s.text(540, 70, "m.t():\nstride (1, 3)", size=18, color=SUBJECT)
    x0, y0 = 204, 250
    s.text(x0 - 14, y0 + 12, "storage", size=18, color=CONTEXT, align="right")
    cells(s, x0, y0, [str(i) for i in range(6)], stroke=INK, bg=INK_SOFT)
    # the order m.t() reads that storage in, row by row, with the jump between each pair
    y1 = y0 + 80
    s.text(x0 - 14, y1 + 12, "m.t() reads", size=18, color=SUBJECT, align="right")
    order = [0, 3, 1, 4, 2, 5]
    for k, v in enumerate(order):
        s.box(x0 + k * CELL, y1, CELL - 8, 44, str(v), size=18, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK)
    for k in range(5):
        jump = order[k + 1] - order[k]
        s.text(x0 + k * CELL + CELL - 4, y1 + 50, f"{jump:+d}", size=16, color=SUBJECT, align="center")
    s.text(360, y1 + 86, "no byte moves; m.t().is_contiguous() is False", size=18, color=CONTEXT,
           align="center")
    return s


def view_or_reshape() -> Scene:
    """reshape's two paths: a new header when the strides allow it, otherwise a copy."""
    s = Scene("part1-view-or-reshape")
    s.text(360, 0, "view and reshape", size=26, align="center")
    q = s.box(230, 56, 350, 76, "can new strides describe the\nnew shape over the same bytes?",
              size=18, bg=INK_SOFT)
    s.box(0, 66, 190, 56, "x.view(shape)\nx.reshape(shape)", size=18, bg=PAPER)
    s.arrow([(194, 94), (226, 94)])
    yes = s.box(20, 206, 300, 76, "new header, same storage\n(no bytes copied)", size=18, bg=INK_SOFT)
    no = s.box(400, 206, 300, 76, "", size=18, stroke=SUBJECT, bg=SUBJECT_SOFT, width=3)
    s.text(550, 214, "view: RuntimeError", size=18, align="center", color=INK)
    s.text(550, 244, "reshape: copy, then view", size=18, align="center", color=SUBJECT)
    s.arrow([(330, 136), (190, 202)], label="yes", size=18, bind=(q, yes))
    s.arrow([(480, 136), (530, 202)], stroke=SUBJECT, label="no", size=18, bind=(q, no))
    s.text(550, 296, "new storage, every byte read\nand written once", size=16, color=CONTEXT,
           align="center")
    s.text(170, 296, "view and reshape both\nreturn a view", size=16, color=CONTEXT, align="center")
    return s


def channels_last() -> Scene:
    """The same 1 x 3 x 2 x 2 image in NCHW and in channels_last order (value = c*100 + h*10 + w)."""
    s = Scene("part1-channels-last")
    s.text(360, 0, "One image, two orders in memory", size=26, align="center")
    s.text(360, 34, "shape (1, 3, 2, 2), each value = c·100 + h·10 + w", size=16, color=CONTEXT,
           align="center")
    nchw = [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211]
    nhwc = [0, 100, 200, 1, 101, 201, 10, 110, 210, 11, 111, 211]
    shade = {0: (INK, PAPER), 1: (SUBJECT, SUBJECT_SOFT), 2: (CONTEXT, CONTEXT_SOFT)}
    x0 = (720 - 12 * 56) / 2
    for row, (name, values, note) in enumerate((
            ("NCHW (contiguous)", nchw, "channel planes: all of c=0, then c=1, then c=2"),
            ("channels_last (NHWC)", nhwc, "pixels: c=0, 1, 2 of one pixel side by side"))):
        y = 90 + row * 130
        s.text(x0, y, name, size=20)
        for i, v in enumerate(values):
            stroke, bg = shade[v // 100]
            s.box(x0 + i * 56, y + 32, 56, 44, str(v), size=18, stroke=stroke, bg=bg, rounded=False, color=INK)
        s.text(x0, y + 82, note, size=16, color=CONTEXT)
    s.text(360, 362, "same shape, same values; only the strides differ", size=18, align="center")
    return s


def float_bits() -> Scene:
    """float32, float16 and bfloat16 as bit fields, one unit per bit."""
    s = Scene("part1-float-bits")
    s.text(360, 0, "Where the bits go", size=26, align="center")
    bit = 16
    x0 = 120
    rows = [("float32", 8, 23), ("float16", 5, 10), ("bfloat16", 8, 7)]
    for r, (name, e, m) in enumerate(rows):
        y = 80 + r * 80
        s.text(x0 - 12, y + 8, name, size=20, align="right")
        s.box(x0, y, bit, 40, "", stroke=INK, bg=INK_SOFT, rounded=False)
        s.box(x0 + bit, y, e * bit, 40, f"exponent {e}" if e * bit >= 110 else str(e), size=16,
              stroke=SUBJECT, bg=SUBJECT_SOFT, rounded=False, color=INK)
        s.box(x0 + bit * (1 + e), y, m * bit, 40, f"mantissa {m}" if m * bit >= 110 else str(m), size=16,
              stroke=INK, bg=PAPER, rounded=False, color=INK)
        s.text(x0 + bit * (1 + e + m) + 12, y + 10, f"{1 + e + m} bits", size=16, color=CONTEXT)
    s.text(x0 - 4, 52, "sign", size=16, color=CONTEXT)
    # bfloat16 is float32 cut in half: same sign and exponent, the mantissa's top 7 bits
    edge = x0 + 16 * bit
    s.line([(edge, 124), (edge, 310)], stroke=CONTEXT, dashed=True)
    s.text(edge + 12, 290, "bfloat16 = the top 16 bits of float32", size=16, color=CONTEXT)
    s.text(360, 336, "exponent bits buy range; mantissa bits buy precision", size=18, align="center",
           color=INK)
    return s


def broadcast() -> Scene:
    """expand: a 3 x 1 column read as 3 x 4 through a zero stride; the sum allocates all twelve."""
    s = Scene("part1-broadcast")
    s.text(360, 0, "Broadcasting: a stride of zero", size=26, align="center")
    top = 96
    s.text(60, top - 40, "col (3, 1)\n12 bytes", size=18, color=SUBJECT)
    for r in range(3):
        s.box(80, top + 12 + r * 44, CELL, 44, str(r + 1), size=18, stroke=SUBJECT, bg=SUBJECT_SOFT,
              rounded=False, color=INK)
    gx = 320
    s.text(gx, top - 30, "col.expand(3, 4): stride (1, 0)", size=18)
    grid(s, gx, top + 12, [[str(r + 1)] * 4 for r in range(3)], stroke=CONTEXT, bg="transparent", dashed=True)
    for r in range(3):
        y = top + 12 + 22 + r * 44
        s.arrow([(gx - 8, y), (80 + CELL + 8, y)], stroke=SUBJECT, width=2, dashed=True)
    s.text(gx, top + 152, "a step right stays on the same\nnumber: no new bytes", size=16, color=CONTEXT)
    s.text(20, 300, "col + row: the result is written, so it is real", size=18)
    cells(s, 20, 332, ["11", "21", "31", "41", "12", "22", "32", "42", "13", "23", "33", "43"], w=54)
    s.text(20, 382, "12 new elements, 48 bytes", size=16, color=CONTEXT)
    return s


SCENES = (
    (storage_header, "part1-storage-header"),
    (strides_walk, "part1-strides-walk"),
    (transpose, "part1-transpose"),
    (view_or_reshape, "part1-view-or-reshape"),
    (channels_last, "part1-channels-last"),
    (float_bits, "part1-float-bits"),
    (broadcast, "part1-broadcast"),
)


def main() -> None:
    for make, name in SCENES:
        make().save(OUT / f"{name}.excalidraw")
        print(f"wrote drawings/{name}.excalidraw")


if __name__ == "__main__":
    main()
