"""Write Part 1's drawings into drawings/: python -m drawings._make.make_part1 (from the repo root).

The committed .excalidraw files are the source of truth once written: edit them in Excalidraw
freely; rerunning this script overwrites them with the generated originals.

Every scene is about 500 units wide, so that on a phone (a text column of about 360 px) it shrinks
by less than a third; labels are 18 units or more, side notes 16.
"""

from __future__ import annotations


from .kit import CONTEXT, CONTEXT_SOFT, INK, INK_SOFT, PAPER, SUBJECT, SUBJECT_SOFT, Scene, write_all

CELL = 40  # one storage element
W = 500    # scene width


def cells(s: Scene, x: float, y: float, labels: list[str], *, stroke: str = INK, bg: str = INK_SOFT,
          dashed: bool = False, size: float = 18, w: float = CELL, h: float = 40,
          highlight: set[int] | None = None) -> list[dict]:
    """A row of storage cells, left to right; ``highlight`` marks cells in the subject colour."""
    out = []
    for i, label in enumerate(labels):
        hot = highlight is not None and i in highlight
        out.append(s.box(x + i * w, y, w, h, label, size=size, stroke=SUBJECT if hot else stroke,
                         bg=SUBJECT_SOFT if hot else bg, dashed=dashed, rounded=False, color=INK))
    return out


def grid(s: Scene, x: float, y: float, rows: list[list[str]], *, stroke: str = INK, bg: str = PAPER,
         dashed: bool = False, size: float = 18, w: float = CELL, h: float = 40) -> list[list[dict]]:
    return [cells(s, x, y + r * h, row, stroke=stroke, bg=bg, dashed=dashed, size=size, w=w, h=h)
            for r, row in enumerate(rows)]


def storage_header() -> Scene:
    """Two headers, one storage: the grid and its transpose read the same twelve numbers."""
    s = Scene("part1-storage-header")
    s.text(W / 2, 0, "Two headers, one storage", size=24, align="center")
    heads = [("m", "size (3, 4)\nstride (4, 1)\noffset 0", 10), ("m.t()", "size (4, 3)\nstride (1, 4)\noffset 0", 270)]
    boxes = []
    for name, body, x in heads:
        b = s.box(x, 50, 220, 130, stroke=INK, bg=INK_SOFT)
        s.text(x + 16, 58, name, size=22)
        s.text(x + 16, 90, body, size=18)
        boxes.append(b)
    x0 = (W - 12 * CELL) / 2
    cells(s, x0, 260, [str(i) for i in range(12)], stroke=SUBJECT, bg=SUBJECT_SOFT)
    for b, end in zip(boxes, (x0 + CELL * 0.3, x0 + CELL * 0.7)):
        s.arrow([(b["x"] + 70, 184), (end, 254)], stroke=INK)
    s.text(x0, 308, "storage: 12 float32, 48 bytes", size=18, color=SUBJECT)
    s.text(x0, 336, "both headers start at element 0", size=16, color=CONTEXT)
    return s


def strides_walk() -> Scene:
    """A 2 x 3 grid and the flat storage beside it: +1 to step right, +3 to step down."""
    s = Scene("part1-strides-walk")
    s.text(W / 2, 0, "Strides: steps in storage", size=24, align="center")
    gx, gy = 64, 84
    grid(s, gx, gy, [["0", "1", "2"], ["3", "4", "5"]], bg=INK_SOFT)
    s.text(gx, gy + 92, "size (2, 3)\nstride (3, 1)", size=18)
    s.arrow([(gx + CELL / 2, gy - 12), (gx + CELL * 1.5, gy - 12)], stroke=SUBJECT, width=3)
    s.text(gx + CELL * 1.7, gy - 28, "right", size=18, color=SUBJECT)
    s.arrow([(gx - 12, gy + 20), (gx - 12, gy + 60)], stroke=SUBJECT, width=3)
    s.text(gx - 18, gy + 26, "down", size=18, color=SUBJECT, align="right")
    x0, y0 = 240, 110
    cells(s, x0, y0, [str(i) for i in range(6)], stroke=INK, bg=INK_SOFT)
    s.text(x0 + 4.5 * CELL, y0 - 26, "storage", size=16, color=CONTEXT, align="center")
    s.arrow([(x0 + CELL / 2, y0 - 6), (x0 + CELL, y0 - 30), (x0 + CELL * 1.5, y0 - 6)],
            stroke=SUBJECT, width=3, rounded=True)
    s.text(x0 + CELL * 1.7, y0 - 46, "+1", size=20, color=SUBJECT)
    s.arrow([(x0 + CELL / 2, y0 + 46), (x0 + CELL * 2, y0 + 100), (x0 + CELL * 3.5, y0 + 46)],
            stroke=SUBJECT, width=3, rounded=True)
    s.text(x0 + CELL * 3.7, y0 + 74, "+3", size=20, color=SUBJECT)
    s.text(W / 2, 262, "[i, j] is at  offset + 3·i + 1·j", size=20, align="center")
    return s


def transpose() -> Scene:
    """The same six numbers read in two orders: t() swaps the strides, nothing moves."""
    s = Scene("part1-transpose")
    s.text(W / 2, 0, "Transpose: swapped strides", size=24, align="center")
    grid(s, 20, 56, [["0", "1", "2"], ["3", "4", "5"]])
    s.text(20, 146, "m: stride (3, 1)", size=18)
    grid(s, 270, 56, [["0", "3"], ["1", "4"], ["2", "5"]], stroke=SUBJECT, bg=SUBJECT_SOFT)
    s.text(364, 66, "m.t():\nstride (1, 3)", size=18, color=SUBJECT)
    x0, y0 = 140, 220
    s.text(x0 - 12, y0 + 8, "storage", size=18, color=CONTEXT, align="right")
    cells(s, x0, y0, [str(i) for i in range(6)], stroke=INK, bg=INK_SOFT)
    y1 = y0 + 64
    s.text(x0 - 12, y1 + 8, "m.t() reads", size=18, color=SUBJECT, align="right")
    order = [0, 3, 1, 4, 2, 5]
    for k, v in enumerate(order):
        s.box(x0 + k * CELL + 2, y1, CELL - 4, 40, str(v), size=18, stroke=SUBJECT, bg=SUBJECT_SOFT, color=INK)
    for k in range(5):
        jump = order[k + 1] - order[k]
        s.text(x0 + (k + 1) * CELL, y1 + 44, f"{jump:+d}", size=16, color=SUBJECT, align="center")
    s.text(W / 2, y1 + 80, "no byte moves; it is not contiguous", size=18, color=CONTEXT, align="center")
    return s


def view_or_reshape() -> Scene:
    """reshape's two paths: a new header when the strides allow it, otherwise a copy."""
    s = Scene("part1-view-or-reshape")
    s.text(W / 2, 0, "view and reshape", size=24, align="center")
    top = s.box(130, 44, 240, 60, "x.view(shape)\nx.reshape(shape)", size=18, bg=PAPER)
    q = s.box(40, 140, 420, 64, "can new strides read the\nsame bytes in the new shape?", size=18, bg=INK_SOFT)
    s.arrow([(250, 108), (250, 136)], bind=(top, q))
    yes = s.box(0, 264, 230, 76, "a view: new header,\nsame storage", size=18, bg=INK_SOFT)
    no = s.box(270, 264, 230, 76, "", stroke=SUBJECT, bg=SUBJECT_SOFT, width=3)
    s.text(385, 272, "view: error", size=18, align="center")
    s.text(385, 302, "reshape: copy", size=18, align="center", color=SUBJECT)
    s.arrow([(170, 208), (115, 260)], label="yes", size=18, bind=(q, yes))
    s.arrow([(330, 208), (385, 260)], stroke=SUBJECT, label="no", size=18, bind=(q, no))
    s.text(385, 350, "new storage, all bytes\nread and written", size=16, color=CONTEXT, align="center")
    s.text(115, 350, "no bytes copied", size=16, color=CONTEXT, align="center")
    return s


def float_bits() -> Scene:
    """float32, float16 and bfloat16 as bit fields, one unit per bit."""
    s = Scene("part1-float-bits")
    s.text(W / 2, 0, "Where the bits go", size=24, align="center")
    bit = 15
    x0 = 10
    rows = [("float32", 8, 23), ("float16", 5, 10), ("bfloat16", 8, 7)]
    for r, (name, e, m) in enumerate(rows):
        y = 50 + r * 84
        s.text(x0, y, f"{name}: {1 + e + m} bits", size=20)
        y += 30
        s.box(x0, y, bit, 40, "", stroke=INK, bg=INK_SOFT, rounded=False)
        s.box(x0 + bit, y, e * bit, 40, f"exp. {e}" if e * bit >= 90 else str(e), size=18,
              stroke=SUBJECT, bg=SUBJECT_SOFT, rounded=False, color=INK)
        s.box(x0 + bit * (1 + e), y, m * bit, 40, f"mantissa {m}" if m * bit >= 100 else str(m), size=18,
              stroke=INK, bg=PAPER, rounded=False, color=INK)
    s.text(x0 + 16 * bit + 10, 50 + 2 * 84, "= float32 rounded\n   to 16 bits", size=16, color=CONTEXT)
    edge = x0 + 16 * bit
    s.line([(edge, 124), (edge, 300)], stroke=CONTEXT, dashed=True)
    s.text(W / 2, 318, "exponent: range; mantissa: precision", size=18, align="center")
    return s


def broadcast() -> Scene:
    """expand: a 3 x 1 column read as 3 x 4 through a zero stride; the sum allocates all twelve."""
    s = Scene("part1-broadcast")
    s.text(W / 2, 0, "Broadcasting: stride 0", size=24, align="center")
    top = 84
    s.text(10, top - 40, "col: 12 bytes", size=18, color=SUBJECT)
    for r in range(3):
        s.box(30, top + r * 40, CELL, 40, str(r + 1), size=18, stroke=SUBJECT, bg=SUBJECT_SOFT,
              rounded=False, color=INK)
    gx = 230
    s.text(gx, top - 40, "col.expand(3, 4)\nstride (1, 0)", size=18)
    s.text(gx, top - 40, "", size=18)
    grid(s, gx, top + 8, [[str(r + 1)] * 4 for r in range(3)], stroke=CONTEXT, bg="transparent", dashed=True)
    for r in range(3):
        y = top + 20 + r * 40 + (8 if r else 0)
        s.arrow([(gx - 8, top + 8 + 20 + r * 40), (30 + CELL + 8, top + 20 + r * 40)], stroke=SUBJECT,
                width=2, dashed=True)
        del y
    s.text(gx, top + 136, "no new bytes", size=16, color=CONTEXT)
    s.text(10, 250, "col + row is written: 48 bytes", size=18)
    cells(s, 10, 280, ["11", "21", "31", "41", "12", "22", "32", "42", "13", "23", "33", "43"])
    return s


SCENES = (
    (storage_header, "part1-storage-header"),
    (strides_walk, "part1-strides-walk"),
    (transpose, "part1-transpose"),
    (view_or_reshape, "part1-view-or-reshape"),
    (float_bits, "part1-float-bits"),
    (broadcast, "part1-broadcast"),
)


def main() -> None:
    write_all(SCENES)


if __name__ == "__main__":
    main()
