"""Part 1's instruments in Chromium: the stride explorer lights exactly the cells the record says
each view reads, the promotion table reads out the recorded dtype for the chosen cell, the static
fallback is complete with JavaScript off, both schemes keep text readable, and a phone shows
them without the page scrolling sideways."""

from __future__ import annotations

import json

import pytest
from browser_support import SCREENSHOTS, click_nav, read_by, record

PAGE = "theme-check/part-01-instruments/"
STRIDES = ".ldr-instrument[data-instrument='stride-explorer']"
PROMO = ".ldr-instrument[data-instrument='promotion-table']"
READY = "() => document.querySelectorAll('.ldr-instrument[data-ldr-ready]').length === 2"


def readout(page, root: str) -> dict:
    return page.eval_on_selector_all(
        f"{root} output[data-key]",
        "els => Object.fromEntries(els.map(o => [o.dataset.key, [o.dataset.value, o.textContent]]))")


def lit(page) -> list[int]:
    return [int(c) for c in page.eval_on_selector_all(f"{STRIDES} .ldr-storage .ldr-cell--read",
                                                      "els => els.map(e => e.dataset.cell)")]


def grid(page) -> list[int]:
    return [int(c) for c in page.eval_on_selector_all(f"{STRIDES} .ldr-viewgrid .ldr-cell",
                                                      "els => els.map(e => e.dataset.cell)")]


def hot(page) -> list[int]:
    return [int(c) for c in page.eval_on_selector_all(f"{STRIDES} .ldr-storage .ldr-cell--hot",
                                                      "els => els.map(e => e.dataset.cell)")]


def cells_of(view: dict) -> list[int]:
    return view["reads"] if view["shares_storage"] else view["values"]


def toggle_scheme(page, to: str):
    target = "__palette_1" if to == "slate" else "__palette_0"
    page.click(f"label[for='{target}']:visible")
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') === s", arg=to)


@pytest.fixture
def part1(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE))
    page.wait_for_function(READY)
    yield page
    watch.check()


def test_embedded_records_are_the_committed_records(part1):
    for root, proof, kind in ((STRIDES, "view_ops", "stride-explorer"), (PROMO, "type_promotion", "promotion-table")):
        payload = json.loads(part1.eval_on_selector(f"{root} script", "s => s.textContent"))[0]
        assert part1.get_attribute(root, "data-proof") == proof
        assert payload["data"] == read_by(kind, record(proof))
        assert proof in part1.text_content(f"{root} .ldr-provenance")


def test_each_operation_lights_the_cells_it_reads(part1):
    views = record("view_ops")["VIEWS"]
    assert part1.locator(f"{STRIDES} select option").count() == len(views)
    for i, view in enumerate(views):
        part1.select_option(f"{STRIDES} select", str(i))
        cells = cells_of(view)
        assert grid(part1) == cells, view["op"]
        assert lit(part1) == sorted(set(cells)), view["op"]
        counts = part1.eval_on_selector_all(f"{STRIDES} .ldr-storage .ldr-cell__count",
                                            "els => els.map(e => e.textContent)")
        assert counts == [f"×{cells.count(c)}" for c in sorted(set(cells)) if cells.count(c) > 1]
        shown = readout(part1, STRIDES)
        assert shown["sizes"][0] == ",".join(map(str, view["sizes"]))
        assert shown["strides"][0] == ",".join(map(str, view["strides"]))
        assert int(shown["offset"][0]) == view["storage_offset"]
        assert shown["contiguous"][0] == str(view["is_contiguous"]).lower()
        assert shown["storage"][0] == str(view["shares_storage"]).lower()
        assert shown["cells"][1] == " ".join(map(str, cells))
        assert part1.text_content(f"{STRIDES} .ldr-strides__op") == view["op"]
        copy = part1.eval_on_selector(STRIDES, "e => e.classList.contains('ldr-strides--copy')")
        assert copy == (not view["shares_storage"])


def test_pointing_and_keys_light_one_storage_cell(part1):
    views = record("view_ops")["VIEWS"]
    i = next(k for k, v in enumerate(views) if v["op"] == "x.t()")
    part1.select_option(f"{STRIDES} select", str(i))
    cells, cols = cells_of(views[i]), views[i]["sizes"][-1]
    part1.hover(f"{STRIDES} .ldr-viewgrid .ldr-cell[data-k='4']")
    assert hot(part1) == [cells[4]]
    assert readout(part1, STRIDES)["element"][1] == f"[1, 1] reads cell {cells[4]}"
    # pointing at a storage cell lights every element that reads it
    part1.hover(f"{STRIDES} .ldr-storage .ldr-cell[data-cell='{cells[4]}']")
    readers = part1.eval_on_selector_all(f"{STRIDES} .ldr-viewgrid .ldr-cell--hot", "els => els.map(e => +e.dataset.k)")
    assert readers == [k for k, c in enumerate(cells) if c == cells[4]]
    assert readout(part1, STRIDES)["element"][1] == f"cell {cells[4]} is read by 1 element"
    part1.focus(f"{STRIDES} .ldr-viewgrid .ldr-cell[data-k='0']")
    part1.keyboard.press("ArrowRight")
    assert hot(part1) == [cells[1]]
    part1.keyboard.press("ArrowDown")
    assert hot(part1) == [cells[1 + cols]]
    part1.keyboard.press("End")
    assert hot(part1) == [cells[-1]]
    e = next(k for k, v in enumerate(views) if "expand" in v["op"])
    part1.select_option(f"{STRIDES} select", str(e))
    part1.hover(f"{STRIDES} .ldr-storage .ldr-cell[data-cell='2']")
    readers = part1.eval_on_selector_all(f"{STRIDES} .ldr-viewgrid .ldr-cell--hot", "els => els.map(e => +e.dataset.k)")
    assert readers == [k for k, c in enumerate(cells_of(views[e])) if c == 2] and len(readers) == 3
    part1.select_option(f"{STRIDES} select", str(i))
    # the operation picker is a native select: the keyboard changes it too
    part1.focus(f"{STRIDES} select")
    part1.keyboard.press("ArrowDown")
    assert grid(part1) == cells_of(views[i + 1])


def test_promotion_cells_read_out_the_recorded_dtype(part1):
    promo = record("type_promotion")["PROMOTION"]
    dtypes, table, n = promo["dtypes"], promo["table"], len(promo["dtypes"])
    assert part1.locator(f"{PROMO} .ldr-promo__cell").count() == n * n
    for a, b in (("int32", "float16"), ("uint8", "int8"), ("float16", "bfloat16"), ("complex64", "float64"),
                 ("bool", "bool"), ("int64", "bool")):
        r, c = dtypes.index(a), dtypes.index(b)
        part1.click(f"{PROMO} .ldr-promo__cell[data-r='{r}'][data-c='{c}']")
        shown = readout(part1, PROMO)
        assert shown["pair"][1] == f"{a} + {b}" and shown["result"][1] == table[r][c]
        current = part1.eval_on_selector_all(f"{PROMO} .ldr-promo__cell--current",
                                             "els => els.map(e => [e.dataset.r, e.dataset.c])")
        assert current == [[str(r), str(c)]]
    part1.click(f"{PROMO} .ldr-promo__cell[data-r='{dtypes.index('int32')}'][data-c='{dtypes.index('float16')}']")
    assert readout(part1, PROMO)["rule"][1] == "a floating type wins over an integer one whatever its size"
    # arrow keys walk the table from the focused cell
    part1.focus(f"{PROMO} .ldr-promo__cell[data-r='0'][data-c='0']")
    for key, (r, c) in (("ArrowRight", (0, 1)), ("ArrowDown", (1, 1)), ("End", (1, n - 1)), ("ArrowUp", (0, n - 1))):
        part1.keyboard.press(key)
        assert readout(part1, PROMO)["result"][1] == table[r][c], key
    # the pointer too
    part1.hover(f"{PROMO} .ldr-promo__cell[data-r='3'][data-c='8']")
    assert readout(part1, PROMO)["pair"][1] == f"{dtypes[3]} + {dtypes[8]}"


def test_without_javascript_the_fallbacks_are_complete(project_site, open_page):
    page, _ = open_page(project_site.url(PAGE), javascript=False)
    views = record("view_ops")["VIEWS"]
    promo = record("type_promotion")
    assert page.locator(f"{STRIDES} .ldr-storage .ldr-cell").count() == record("view_ops")["BASE"]["numel"]
    assert grid(page) == cells_of(views[0])
    rows = page.eval_on_selector_all(f"{STRIDES} tbody tr",
                                     "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))")
    assert [r[0] for r in rows] == [v["op"] for v in views]
    assert [r[-1] for r in rows] == [" ".join(map(str, cells_of(v))) for v in views]
    assert page.is_visible(f"{STRIDES} .ldr-strides__status") and not page.is_visible(f"{STRIDES} select")
    texts = page.eval_on_selector_all(f"{PROMO} .ldr-promo__cell", "els => els.map(e => e.getAttribute('title'))")
    assert texts == [f"{a} + {b} -> {r}" for a, row in zip(promo["PROMOTION"]["dtypes"], promo["PROMOTION"]["table"])
                     for b, r in zip(promo["PROMOTION"]["dtypes"], row)]
    assert page.locator(f"{PROMO} .ldr-promo__cases li").count() == len(promo["SCALARS"])
    assert page.is_visible(f"{PROMO} .ldr-promo") and not page.is_visible(f"{PROMO} .ldr-controls")


CONTRAST = """root => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => { const v = c.slice(0, 3).map(x => {
                       x /= 255; return x <= .03928 ? x / 12.92 : Math.pow((x + .055) / 1.055, 2.4); });
                     return .2126 * v[0] + .7152 * v[1] + .0722 * v[2]; };
  const ground = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                        if (c.length === 3 || c[3] > 0) return c; } return [255, 255, 255]; };
  const out = [];
  root.querySelectorAll('.ldr-cell, .ldr-promo__cell, .ldr-promo th, output, .ldr-chip, .ldr-promo__why, '
                        + '.ldr-strides__label, .ldr-walker__hint').forEach(e => {
    if (!e.textContent.trim() || !e.getClientRects().length) return;
    const a = lum(rgb(getComputedStyle(e).color)), b = lum(ground(e));
    out.push([e.className || e.tagName, e.textContent.trim().slice(0, 20),
              (Math.max(a, b) + .05) / (Math.min(a, b) + .05), parseFloat(getComputedStyle(e).fontSize)]);
  });
  return out;
}"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_both_schemes_keep_text_readable(part1, scheme):
    if scheme == "slate":
        toggle_scheme(part1, "slate")
    part1.select_option(f"{STRIDES} select", "6")  # expand: counts on the storage cells
    part1.hover(f"{STRIDES} .ldr-viewgrid .ldr-cell[data-k='1']")
    for root in (STRIDES, PROMO):
        measured = part1.eval_on_selector(root, CONTRAST)
        assert len(measured) > 20
        poor = [m for m in measured if m[2] < 4.5]
        assert not poor, poor
        small = [m for m in measured if m[3] < 11]
        assert not small, small


def test_a_phone_shows_them_without_sideways_page_scroll(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE), width=390, height=844)
    page.wait_for_function(READY)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    for root in (STRIDES, PROMO):
        box = page.locator(root).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    box = page.eval_on_selector(f"{PROMO} .ldr-promo__scroll",
                                "e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).overflowX]")
    assert box[2] == "auto"
    if box[0] > box[1]:  # the matrix scrolls inside its own box, and says so
        assert page.is_visible(f"{PROMO} .ldr-scroll-hint")
    sizes = page.eval_on_selector_all(f"{STRIDES} *, {PROMO} *",
                                      "els => els.filter(e => e.childNodes.length && Array.from(e.childNodes).some(n "
                                      "=> n.nodeType === 3 && n.textContent.trim()) && e.getClientRects().length)"
                                      ".map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes and min(sizes) >= 11
    for sel in (f"{STRIDES} .ldr-strides", f"{PROMO} .ldr-promo__scroll", f"{STRIDES} .ldr-controls"):
        assert page.eval_on_selector(sel, "e => getComputedStyle(e).userSelect") == "none"
    watch.check()


def test_they_mount_after_instant_navigation(project_site, open_page):
    page, watch = open_page(project_site.url("theme-check/"))
    page.evaluate("() => { window.__ldrSamePage = true; }")
    click_nav(page, PAGE)
    page.wait_for_function(READY)
    assert page.evaluate("() => window.__ldrSamePage === true")
    page.select_option(f"{STRIDES} select", "1")
    assert grid(page) == cells_of(record("view_ops")["VIEWS"][1])
    watch.check()


def test_screenshots_of_part_1_instruments(project_site, open_page):
    """Light and dark, desktop and phone, into tests/browser/screenshots/ to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    for size, (w, h) in {"desktop": (1440, 900), "phone": (390, 844)}.items():
        for scheme in ("light", "dark"):
            page, watch = open_page(project_site.url(PAGE), width=w, height=h)
            page.wait_for_function(READY)
            if scheme == "dark":
                toggle_scheme(page, "slate")
            page.select_option(f"{STRIDES} select", "6")
            page.click(f"{PROMO} .ldr-promo__cell[data-r='4'][data-c='6']")
            page.mouse.move(0, h - 1)  # so that scrolling does not slide another cell under the pointer
            for kind, root in (("stride-explorer", STRIDES), ("promotion-table", PROMO)):
                page.locator(root).evaluate("e => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -70); }")
                page.wait_for_timeout(150)
                page.screenshot(path=str(SCREENSHOTS / f"part1-{scheme}-{size}-{kind}.png"))
            watch.check()
            page.context.close()
