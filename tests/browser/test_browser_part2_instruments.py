"""Part 2's instruments in Chromium. The in-place lab reads out, for every op and write the reader
picks, exactly the row the version_counter record holds (node, saved slots, both versions, what
backward did); the engine stepper shows, step by step, the node engine_order recorded, the ready
queue it was picked from and the nodes already run. The keyboard drives both; with JavaScript off
the drawings and full tables are there; both schemes keep text readable; a phone shows them
without the page scrolling sideways."""

from __future__ import annotations

import json

import pytest
from browser_support import SCREENSHOTS, click_nav, read_by, record

from build_hooks.series.instruments._common import fmt

PAGE = "theme-check/part-02-instruments/"
LAB = ".ldr-instrument[data-instrument='inplace-lab']"
STEPPER = ".ldr-instrument[data-instrument='engine-stepper']"
READY = "() => document.querySelectorAll('.ldr-instrument[data-ldr-ready]').length === 2"
TARGET = {"input": "a", "output": "out"}
HOLDS = {"a": "input", "out": "output"}


def readout(page) -> dict:
    return page.eval_on_selector_all(
        f"{LAB} output[data-key]",
        "els => Object.fromEntries(els.map(o => [o.dataset.key, [o.dataset.value, o.textContent]]))")


def expected_verdict(row: dict) -> str:
    if row["ran"]:
        return "backward ran: x.grad = [" + ", ".join(fmt(float(g)) for g in row["grad"]) + "]"
    return "backward raised RuntimeError: " + row["error"]


def choose(page, op: str, write: str):
    page.select_option(f"{LAB} select", op)
    page.check(f"{LAB} input[type='radio'][value='{write}']")


def classes(page, tensor: str) -> list[str]:
    return page.eval_on_selector(f"{LAB} .ldr-lab__tensor[data-tensor='{tensor}']", "e => Array.from(e.classList)")


def toggle_scheme(page, to: str):
    target = "__palette_1" if to == "slate" else "__palette_0"
    page.click(f"label[for='{target}']:visible")
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') === s", arg=to)


@pytest.fixture
def part2(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE))
    page.wait_for_function(READY)
    yield page
    watch.check()


def test_embedded_record_is_the_committed_record(part2):
    payload = json.loads(part2.eval_on_selector(f"{LAB} script", "s => s.textContent"))[0]
    assert part2.get_attribute(LAB, "data-proof") == "version_counter"
    assert payload["data"] == read_by("inplace-lab", record("version_counter"))
    assert "version_counter" in part2.text_content(f"{LAB} .ldr-provenance")


def test_every_op_and_write_reads_out_its_recorded_row(part2):
    rows = record("version_counter")["LAB"]
    ops = part2.eval_on_selector_all(f"{LAB} select option", "os => os.map(o => o.value)")
    assert ops == list(dict.fromkeys(r["op"] for r in rows))
    for row in rows:
        choose(part2, row["op"], row["write"])
        shown = readout(part2)
        assert shown["node"][1] == row["node"]
        assert int(shown["a_version"][0]) == row["versions"]["a"]
        assert int(shown["out_version"][0]) == row["versions"]["out"]
        assert int(shown["saved"][0]) == len(row["saved"])
        for slot in row["saved"]:
            held = "a" if slot["holds"] == "input" else "out"
            assert f"{slot['slot']} = {held}, saved at version {slot['saved_version']}" in shown["saved"][1]
        assert shown["verdict"][1] == expected_verdict(row), (row["op"], row["write"])
        assert shown["verdict"][0] == ("ran" if row["ran"] else "error")
        assert part2.get_attribute(f"{LAB} .ldr-lab", "data-state") == shown["verdict"][0]
        for tensor in ("a", "out"):
            kept = any(s["holds"] == HOLDS[tensor] for s in row["saved"])
            assert ("ldr-lab__tensor--saved" in classes(part2, tensor)) == kept
            assert ("ldr-lab__tensor--written" in classes(part2, tensor)) == (TARGET.get(row["write"]) == tensor)
            assert shown[f"{tensor}_kept"][1] == ("saved by the node" if kept else "not saved")
        code = part2.text_content(f"{LAB} .ldr-lab__program")
        assert code.startswith("a = x * 1; out = ") and code.endswith("out.sum().backward()")
        assert ("a.add_(1)" in code) == (row["write"] == "input")
        assert ("out.add_(1)" in code) == (row["write"] == "output")


def test_the_puzzle_case_fails_and_its_mirror_runs(part2):
    choose(part2, "sigmoid", "output")
    shown = readout(part2)
    assert shown["verdict"][0] == "error"
    assert "output 0 of Sigmoid, is at version 1; expected version 0" in shown["verdict"][1]
    assert shown["out_version"][1] == "1" and "saved at version 0" in shown["saved"][1]
    choose(part2, "sigmoid", "input")
    assert readout(part2)["verdict"][0] == "ran"
    choose(part2, "sin", "input")
    assert readout(part2)["verdict"][0] == "error"


def test_the_keyboard_drives_the_lab(part2):
    rows = record("version_counter")["LAB"]
    ops = list(dict.fromkeys(r["op"] for r in rows))
    part2.focus(f"{LAB} select")
    part2.keyboard.press("ArrowDown")
    assert readout(part2)["node"][1] == next(r["node"] for r in rows if r["op"] == ops[1])
    part2.focus(f"{LAB} input[type='radio'][value='none']")
    part2.keyboard.press("ArrowRight")
    assert part2.is_checked(f"{LAB} input[type='radio'][value='input']")
    row = next(r for r in rows if r["op"] == ops[1] and r["write"] == "input")
    assert readout(part2)["verdict"][1] == expected_verdict(row)
    part2.keyboard.press("ArrowRight")
    row = next(r for r in rows if r["op"] == ops[1] and r["write"] == "output")
    assert readout(part2)["verdict"][1] == expected_verdict(row)


def seq_text(seq: int) -> str:
    return "max" if seq == 2 ** 64 - 1 else str(seq)


def stepper_state(page) -> dict:
    shown = readout_of(page, STEPPER)
    marks = page.eval_on_selector_all(f"{STEPPER} .ldr-mark",
                                      "ms => ms.map(m => [+m.dataset.step, Array.from(m.classList)])")
    return {"shown": shown, "marks": dict((k, c) for k, c in marks)}


def readout_of(page, root: str) -> dict:
    return page.eval_on_selector_all(
        f"{root} output[data-key]",
        "els => Object.fromEntries(els.map(o => [o.dataset.key, [o.dataset.value, o.textContent]]))")


def check_step(page, rows: list[dict], k: int):
    state = stepper_state(page)
    row = rows[k]
    assert state["shown"]["step"][1] == f"{k + 1} of {len(rows)}"
    assert state["shown"]["name"][1] == row["name"] and state["shown"]["seq"][1] == seq_text(row["seq"])
    ready = ", ".join(f'{rows[s]["name"]} ({seq_text(rows[s]["seq"])})' for s in row["ready"])
    assert state["shown"]["ready"][1] == ready
    for j, classes in state["marks"].items():
        assert ("ldr-mark--current" in classes) == (j == k)
        assert ("ldr-mark--visited" in classes) == (j < k)
        assert ("ldr-mark--ready" in classes) == (j != k and j in row["ready"])


def test_the_stepper_walks_the_recorded_run(part2):
    rows = record("engine_order")["ORDER"]
    assert part2.locator(f"{STEPPER} .ldr-mark").count() == len(rows)
    check_step(part2, rows, 0)
    for k in range(1, len(rows)):
        part2.click(f"{STEPPER} [data-step-to='next']")
        check_step(part2, rows, k)
    # the ready node with the highest sequence number is the one that runs, at every step
    for row in rows:
        assert max(row["ready"], key=lambda s: rows[s]["seq"]) == row["step"]
    part2.click(f"{STEPPER} [data-step-to='first']")
    check_step(part2, rows, 0)
    part2.focus(f"{STEPPER} .ldr-figure")
    part2.keyboard.press("ArrowRight")
    check_step(part2, rows, 1)
    part2.keyboard.press("End")
    check_step(part2, rows, len(rows) - 1)
    part2.keyboard.press("ArrowLeft")
    check_step(part2, rows, len(rows) - 2)
    part2.click(f"{STEPPER} .ldr-mark[data-step='4']")
    check_step(part2, rows, 4)


def test_without_javascript_the_fallback_is_complete(project_site, open_page):
    page, _ = open_page(project_site.url(PAGE), javascript=False)
    rows = record("version_counter")["LAB"]
    first = rows[0]
    shown = readout(page)
    assert shown["node"][1] == first["node"] and shown["verdict"][1] == expected_verdict(first)
    assert page.is_visible(f"{LAB} .ldr-lab") and not page.is_visible(f"{LAB} select")
    table = page.eval_on_selector_all(f"{LAB} tbody tr", "rs => rs.map(r => [r.dataset.op, r.dataset.write, "
                                                         "Array.from(r.cells).map(c => c.textContent)])")
    assert [(op, w) for op, w, _ in table] == [(r["op"], r["write"]) for r in rows]
    assert [cells[-1] for _, _, cells in table] == [expected_verdict(r) for r in rows]
    assert [cells[3:5] for _, _, cells in table] == [[str(r["versions"]["a"]), str(r["versions"]["out"])] for r in rows]
    order = record("engine_order")["ORDER"]
    assert page.locator(f"{STEPPER} .ldr-mark").count() == len(order) and not page.is_visible(f"{STEPPER} .ldr-buttons")
    steps = page.eval_on_selector_all(f"{STEPPER} tbody tr",
                                      "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))")
    assert [cells[1] for cells in steps] == [r["name"] for r in order]
    assert [cells[3] for cells in steps] == [", ".join(f'{order[s]["name"]} ({seq_text(order[s]["seq"])})'
                                                       for s in r["ready"]) for r in order]


CONTRAST = """root => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => { const v = c.slice(0, 3).map(x => {
                       x /= 255; return x <= .03928 ? x / 12.92 : Math.pow((x + .055) / 1.055, 2.4); });
                     return .2126 * v[0] + .7152 * v[1] + .0722 * v[2]; };
  const ground = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                        if (c.length === 3 || c[3] > 0) return c; } return [255, 255, 255]; };
  const out = [];
  root.querySelectorAll('output, code, legend, label, .ldr-lab__role, .ldr-instrument__lead, td').forEach(e => {
    if (!e.textContent.trim() || !e.getClientRects().length) return;
    const a = lum(rgb(getComputedStyle(e).color)), b = lum(ground(e));
    out.push([e.className || e.tagName, e.textContent.trim().slice(0, 20),
              (Math.max(a, b) + .05) / (Math.min(a, b) + .05), parseFloat(getComputedStyle(e).fontSize)]);
  });
  return out;
}"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_both_schemes_keep_text_readable(part2, scheme):
    if scheme == "slate":
        toggle_scheme(part2, "slate")
    choose(part2, "exp", "output")  # the error state: orange text on the verdict
    part2.click(f"{LAB} .ldr-instrument__table summary")
    measured = part2.eval_on_selector(LAB, CONTRAST)
    assert len(measured) > 20
    part2.click(f"{STEPPER} [data-step-to='next']")
    part2.click(f"{STEPPER} .ldr-instrument__table summary")
    stepped = part2.eval_on_selector(STEPPER, CONTRAST)
    assert len(stepped) > 10
    poor = [m for m in measured + stepped if m[2] < 4.5]
    assert not poor, poor
    small = [m for m in measured + stepped if m[3] < 11]
    assert not small, small


def test_a_phone_shows_it_without_sideways_page_scroll(project_site, open_page):
    page, watch = open_page(project_site.url(PAGE), width=390, height=844)
    page.wait_for_function(READY)
    choose(page, "a * a", "input")  # the longest error text
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    box = page.locator(LAB).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    for sel in (".ldr-lab__tensor[data-tensor='a']", ".ldr-lab__node", ".ldr-lab__tensor[data-tensor='out']",
                ".ldr-lab__verdict", ".ldr-lab__writes"):
        inner = page.locator(f"{LAB} {sel}").bounding_box()
        assert inner["x"] >= box["x"] - 1 and inner["x"] + inner["width"] <= box["x"] + box["width"] + 1, sel
    box = page.locator(STEPPER).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    scroll = page.eval_on_selector(f"{STEPPER} .ldr-figure",
                                   "e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).overflowX]")
    assert scroll[0] <= scroll[1] or scroll[2] == "auto"  # the graph scrolls inside its own box if it must
    sizes = page.eval_on_selector_all(f"{LAB} *",
                                      "els => els.filter(e => e.childNodes.length && Array.from(e.childNodes).some(n "
                                      "=> n.nodeType === 3 && n.textContent.trim()) && e.getClientRects().length)"
                                      ".map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes and min(sizes) >= 11
    watch.check()


def test_it_mounts_after_instant_navigation(project_site, open_page):
    page, watch = open_page(project_site.url("theme-check/"))
    page.evaluate("() => { window.__ldrSamePage = true; }")
    click_nav(page, PAGE)
    page.wait_for_function(READY)
    assert page.evaluate("() => window.__ldrSamePage === true")
    choose(page, "relu", "output")
    assert readout(page)["verdict"][0] == "error"
    page.click(f"{STEPPER} [data-step-to='last']")
    assert readout_of(page, STEPPER)["name"][1] == record("engine_order")["ORDER"][-1]["name"]
    watch.check()


def test_screenshots_of_part_2_instruments(project_site, open_page):
    """Light and dark, desktop and phone, into tests/browser/screenshots/ to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    for size, (w, h) in {"desktop": (1440, 900), "phone": (390, 844)}.items():
        for scheme in ("light", "dark"):
            page, watch = open_page(project_site.url(PAGE), width=w, height=h)
            page.wait_for_function(READY)
            if scheme == "dark":
                toggle_scheme(page, "slate")
            choose(page, "sigmoid", "output")
            page.click(f"{STEPPER} [data-step-to='next']")
            page.click(f"{STEPPER} [data-step-to='next']")
            for kind, root in (("inplace-lab", LAB), ("engine-stepper", STEPPER)):
                page.locator(root).evaluate("e => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -70); }")
                page.wait_for_timeout(150)
                page.screenshot(path=str(SCREENSHOTS / f"part2-{scheme}-{size}-{kind}.png"))
            watch.check()
            page.context.close()
