"""Page decoration: the static depth meter and the one-robot check."""

from __future__ import annotations

import re

from theme_support import ROOT

from build_hooks.series.pagetheme import decorate_page, find_floor_sections, load_floors

IDS = ["python", "binding", "dispatcher", "autograd", "kernel", "memory", "runtime", "hardware"]
PAGE = """<h1 id="t">Title</h1><p>intro</p>
<h2 data-floor="python" id="where">Where</h2><p>a</p>
<h2 data-floor="dispatcher" id="dispatch">Dispatch</h2><h3 id="keys">Keys</h3>
<h2 data-floor="python" id="back-up">Back up</h2>
<h2 id="anchorless" data-floor="kernel">Kernel</h2>
<h2 data-floor="hardware">No id</h2>"""


def floors_in(meter: str) -> list[str]:
    return re.findall(r'<li class="ldr-meter__floor[^"]*" data-floor="([a-z]+)"', meter)


def test_floors_file_defines_the_eight_floors_top_to_bottom():
    floors = load_floors(ROOT)
    assert [f["id"] for f in floors] == IDS
    assert all(f["label"] and f["description"] for f in floors)


def test_meter_lists_every_floor_and_links_the_first_section_of_each():
    html, extra, warnings = decorate_page(PAGE, root=ROOT, page_path="part-00-the-map.md")
    meter = extra["ldr_meter"]
    assert warnings == []
    assert meter.startswith('<nav class="ldr-meter" data-ldr-meter aria-labelledby="ldr-meter-title">')
    assert floors_in(meter) == IDS
    links = dict(re.findall(r'data-floor="([a-z]+)"><a href="#([^"]+)"', meter))
    assert links == {"python": "where", "dispatcher": "dispatch", "kernel": "anchorless",
                     "hardware": "floor-hardware-5"}
    assert '<h2 data-floor="hardware" id="floor-hardware-5" data-floor-label="The chip">' in html
    assert re.sub(r' (id="floor-hardware-5"|data-floor-label="[^"]*")', "", html) == PAGE
    assert '<h2 data-floor="dispatcher" id="dispatch" data-floor-label="Dispatcher">' in html
    assert meter.count("(not on this page)") == 4
    assert "aria-current" not in meter  # the static meter marks no position; JS does
    assert extra["ldr_meter_empty"] is False


def test_a_page_without_floors_still_gets_a_meter():
    html, extra, _ = decorate_page("<p>hello</p>", root=ROOT, page_path="index.md")
    assert html == "<p>hello</p>" and floors_in(extra["ldr_meter"]) == IDS
    assert "<a " not in extra["ldr_meter"]
    assert extra["ldr_meter_empty"] is True  # no bar on phones (theme/partials/ldr-meter.html)


def test_unknown_floors_are_warnings_naming_the_page():
    _, extra, warnings = decorate_page('<h2 data-floor="basement" id="b">B</h2>', root=ROOT, page_path="p.md")
    assert len(warnings) == 1 and "p.md" in warnings[0] and "basement" in warnings[0]
    assert "<a " not in extra["ldr_meter"] and extra["ldr_meter_empty"] is True


def test_the_robot_appears_once_per_page():
    one = '<figure class="ldr-robot"><p class="ldr-robot__says">x</p></figure>'
    assert decorate_page(one, root=ROOT, page_path="a.md")[2] == []
    two = one + '<div class="note ldr-robot">y</div>'
    warnings = decorate_page(two, root=ROOT, page_path="docs/a.md")[2]
    assert len(warnings) == 1 and "docs/a.md" in warnings[0] and "2 times" in warnings[0]


def test_floor_sections_are_read_from_attr_list_headings():
    found = find_floor_sections(PAGE)
    first_two = [(s["floor"], s["id"], s["level"]) for s in found][:2]
    assert first_two == [("python", "where", 2), ("dispatcher", "dispatch", 2)]
