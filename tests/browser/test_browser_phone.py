"""Reading on a phone (issue 11, item 7; issue 20): a drawing opens full screen, fitted, and zooms
by pinch, wheel or keys; the depth meter agrees with the table of contents and stays off
floorless sections, each part leads to the next, the first visit follows the system's colour
scheme, and the figure's download link is short and no part of the figure's name."""

from __future__ import annotations

import re

import pytest
from browser_support import SCREENSHOTS, SCROLL_TO, draw_all, instant_ready, move_and_read, settle
from playwright.sync_api import TimeoutError as PlaywrightTimeout

PHONE = {"width": 390, "height": 844}
LEGIBLE_PX = 9.0  # the smallest label a reader can make out, as shown on the screen
PART0 = "part-00-the-map/"

# The smallest label of a drawing as shown: its font size in the scene times the drawing's scale.
# A drawing published as a file (site/lazyfigures.py) is drawn through a <use>, whose copy of the
# file is out of the page's reach: its labels are read from the file. None when there is no label.
SMALLEST_LABEL = """async svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = Array.from(svg.querySelectorAll('text')).map(t => parseFloat(getComputedStyle(t).fontSize));
  const use = svg.querySelector('use');
  if (use) {
    const src = (use.getAttribute('href') || use.getAttribute('data-ldr-src')).split('#')[0];
    const file = new DOMParser().parseFromString(await (await fetch(src)).text(), 'image/svg+xml');
    file.querySelectorAll('text').forEach(t => sizes.push(parseFloat(t.getAttribute('font-size'))));
  }
  return sizes.length ? Math.min(...sizes) * scale : null;
}"""


def drawing_pages(site) -> list[str]:
    """Every built page that shows an Excalidraw drawing, as a path below the site."""
    return sorted(p.parent.relative_to(site.folder).as_posix() + "/"
                  for p in site.folder.rglob("index.html") if "ldr-drawing" in p.read_text(encoding="utf-8"))


# --- drawings ---------------------------------------------------------------------------------------

VIEW = """() => { const d = document.querySelector('dialog.ldr-zoom[open]');
  const box = e => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom, r.width, r.height]; };
  return {svg: box(d.querySelector('svg.ldr-drawing')), pane: box(d.querySelector('.ldr-zoom__pane')),
          zoom: d.dataset.zoom}; }"""


def fits(view) -> bool:
    """The whole drawing inside the pane, and as large as the pane allows along one side."""
    s, p = view["svg"], view["pane"]
    inside = s[0] >= p[0] - 0.5 and s[1] >= p[1] - 0.5 and s[2] <= p[2] + 0.5 and s[3] <= p[3] + 0.5
    return inside and max(s[4] / p[4], s[5] / p[5]) > 0.9


def test_every_drawing_opens_fitted_to_a_phone_and_zooms_to_legible(project_site, open_page):
    pages = drawing_pages(project_site)
    assert PART0 in pages and "part-01-the-tensor/" in pages
    checked, smallest_inline, smallest_zoomed = 0, 1e9, 1e9
    for path in pages:
        page, watch = open_page(project_site.url(path), **PHONE)
        # each by its id: while its drawing is in the viewer, "the nth figure with a drawing" is another
        names = page.locator("figure.ldr-figure:has(svg.ldr-drawing)").evaluate_all("fs => fs.map(f => f.id)")
        assert all(names), f"{path}: a figure without an id"
        for name in names:
            figure = page.locator(f"figure#{name}")
            inline = figure.locator("svg.ldr-drawing").evaluate(SMALLEST_LABEL)
            assert inline is not None, f"{path}#{name}: a drawing without a label"
            # legible as drawn in the column, before any enlarging
            assert inline >= LEGIBLE_PX, f"{path}#{name}: its smallest label is {inline:.2f} px on a phone"
            smallest_inline = min(smallest_inline, inline)
            button = figure.locator(".ldr-figure-tools button.ldr-figure-open")
            assert button.count() == 1, f"{path}#{name}: the drawing does not open full screen"
            box = button.bounding_box()
            assert box["width"] >= 24 and box["height"] >= 24, f"{path}#{name}: Enlarge is {box}"
            # from the keyboard: a click lands where the button was when it was hit-tested, and
            # on a slow machine the page can still move under it (tapping is the next test's)
            button.press("Enter")
            dialog = page.locator("dialog.ldr-zoom[open]")
            try:
                dialog.wait_for(timeout=15_000)
            except PlaywrightTimeout:
                pytest.fail(f"{path}#{name}: Enlarge did not open the viewer; console: {watch.errors}")
            box = dialog.bounding_box()
            assert box["width"] == PHONE["width"] and box["height"] == PHONE["height"], "not full screen"
            # the whole drawing, fitted to the screen (it opened at its drawn size, its left 44% shown)
            view = page.evaluate(VIEW)
            assert fits(view), f"{path}#{name}: {view}"
            # zoom in from the keyboard until the labels read well (or the viewer stops zooming)
            for _ in range(12):
                if dialog.locator("svg.ldr-drawing").evaluate(SMALLEST_LABEL) >= LEGIBLE_PX:
                    break
                dialog.locator(".ldr-zoom__in").click()
            zoomed = dialog.locator("svg.ldr-drawing").evaluate(SMALLEST_LABEL)
            smallest_zoomed = min(smallest_zoomed, zoomed)
            assert zoomed >= LEGIBLE_PX, f"{path}#{name}: labels {inline:.1f} px, zoomed {zoomed:.1f} px"
            # the viewer takes the gestures itself (drag, pinch): the page behind does not scroll
            assert dialog.evaluate("d => getComputedStyle(d.querySelector('.ldr-zoom__pane')).touchAction") == "none"
            page.keyboard.press("Escape")
            page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
            assert figure.locator("svg.ldr-drawing").count() == 1, f"{path}#{name}: not put back"
            assert figure.locator("svg.ldr-drawing").evaluate("s => s.style.transform + s.style.width") == ""
            checked += 1
        watch.check()
    assert checked >= 13
    print(f"smallest label on a phone: inline {smallest_inline:.2f} px, zoomed {smallest_zoomed:.2f} px")


def test_every_instrument_label_is_legible_on_a_phone(project_site, open_page):
    """An instrument's chart is drawn to the column's width (a graph scrolls sideways only below
    70% of its width): at 390 px its smallest label still reads at 9 px or more."""
    pages = sorted(p.parent.relative_to(project_site.folder).as_posix() + "/"
                   for p in project_site.folder.rglob("index.html")
                   if 'class="ldr-instrument"' in p.read_text(encoding="utf-8"))
    checked = []
    for path in pages:
        page, watch = open_page(project_site.url(path), **PHONE)
        draw_all(page)
        plots = page.locator(".ldr-instrument svg.ldr-plot")
        for k in range(plots.count()):
            kind = plots.nth(k).evaluate("s => s.closest('.ldr-instrument').dataset.instrument")
            smallest = plots.nth(k).evaluate(SMALLEST_LABEL)
            if smallest is not None:
                assert smallest >= LEGIBLE_PX, f"{path} {kind}: its smallest label is {smallest:.2f} px"
                checked.append(kind)
        watch.check()
        page.context.close()
    assert "graph-walker" in checked and len(checked) >= 5, checked


def lazy_pages(site) -> list[str]:
    """Every built page that holds a drawing published as a file (site/lazyfigures.py)."""
    return sorted(p.parent.relative_to(site.folder).as_posix() + "/"
                  for p in site.folder.rglob("index.html") if "ldr-drawing-file" in p.read_text(encoding="utf-8"))


def test_a_drawing_published_as_a_file_arrives_as_the_reader_nears_it(project_site, browser):
    """Not asked for while it is screens away; scrolled to, the page draws it from its file, in
    the palette of the scheme; without JavaScript the <img> shows the file."""
    path = lazy_pages(project_site)[0]
    html = (project_site.folder / path / "index.html").read_text(encoding="utf-8")
    files = re.findall(r'<img class="ldr-drawing-file" src="([^"]+)"', html)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/assets/ldr/figures/" in r.url else None)
    page.goto(project_site.url(path), wait_until="load")
    settle(page)
    assert page.locator("img.ldr-drawing-file").count() == 0  # each became a drawing of the page's
    drawn = page.locator("figure.ldr-figure svg.ldr-drawing:has(use)")
    assert drawn.count() == len(files)
    tops = drawn.evaluate_all("ss => ss.map(s => s.getBoundingClientRect().top)")
    far = [k for k, top in enumerate(tops) if top > 3 * PHONE["height"]]
    assert far, f"{path}: no drawing published as a file is three screens down"
    for k in far:
        assert drawn.nth(k).locator("use").get_attribute("href") is None
        assert not any(files[k].split("/")[-1] in url for url in asked), f"{path}: {files[k]} asked for at load"
    target = drawn.nth(far[-1])
    target.scroll_into_view_if_needed()
    page.wait_for_function("s => s.querySelector('use').hasAttribute('href')", arg=target.element_handle())
    page.wait_for_function("s => s.querySelector('use').getBBox().width > 0", arg=target.element_handle())
    assert any(files[far[-1]].split("/")[-1] in url for url in asked)
    assert target.locator("use").get_attribute("href").endswith("#ldr-drawing")
    light = target.screenshot()
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'slate')")
    settle(page)
    assert target.screenshot() != light  # drawn by the page: its palette's slate values
    context.close()
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(project_site.url(path), wait_until="load")
    shown = page.locator("figure.ldr-figure img.ldr-drawing-file")
    assert shown.count() == len(files)
    shown.nth(far[-1]).scroll_into_view_if_needed()
    page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=shown.nth(far[-1]).element_handle())
    context.close()


def test_a_drawing_put_in_another_ones_place_still_opens(project_site, open_page):
    """The viewer finds the figure's drawing when it is asked to open it: one that another script
    drew in the first one's place after the viewer was set up (as ldr-figure-files.js draws a
    file's <img>) opens from Enlarge and from a tap on it, and goes back to the figure."""
    page, watch = open_page(project_site.url(PART0), **PHONE)
    page.evaluate("""() => { const f = document.querySelector('#figure-two-clocks');
      const old = f.querySelector('svg.ldr-drawing'), made = old.cloneNode(true);
      made.setAttribute('data-made', ''); old.replaceWith(made); }""")
    button = page.locator("#figure-two-clocks button.ldr-figure-open")
    button.press("Enter")
    page.locator("dialog.ldr-zoom[open] svg.ldr-drawing[data-made]").wait_for(timeout=15_000)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !!document.querySelector('#figure-two-clocks svg.ldr-drawing[data-made]')")
    # a click on the drawing itself (dispatched on it: the figure's listener takes it as it bubbles)
    page.locator("#figure-two-clocks svg.ldr-drawing").dispatch_event("click")
    page.locator("dialog.ldr-zoom[open] svg.ldr-drawing[data-made]").wait_for(timeout=15_000)
    page.keyboard.press("Escape")
    watch.check()


def test_pinch_and_drag_zoom_and_pan_the_drawing(project_site, browser):
    """Two fingers spread apart zoom in around them; one finger drags the drawing; a double tap or
    Fit brings the whole drawing back (touch events from Chromium's own input, not synthetic ones)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(project_site.url(PART0), wait_until="load")
    page.locator("#figure-two-clocks button.ldr-figure-open").tap()
    page.locator("dialog.ldr-zoom[open]").wait_for()
    before = page.evaluate(VIEW)
    assert before["zoom"] == "fit" and fits(before)
    cdp = context.new_cdp_session(page)

    def touch(kind, points):
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})

    pane = before["pane"]
    cx, cy = (pane[0] + pane[2]) / 2, (pane[1] + pane[3]) / 2
    touch("touchStart", [(cx - 20, cy), (cx + 20, cy)])
    for k in range(1, 11):
        touch("touchMove", [(cx - 20 - 8 * k, cy), (cx + 20 + 8 * k, cy)])
    touch("touchEnd", [])
    pinched = page.evaluate(VIEW)
    assert pinched["svg"][4] > 3 * before["svg"][4], (before, pinched)
    # the point between the fingers stayed under them
    fx = (cx - before["svg"][0]) / before["svg"][4]
    assert abs((cx - pinched["svg"][0]) / pinched["svg"][4] - fx) < 0.02
    touch("touchStart", [(cx, cy)])
    for k in range(1, 6):
        touch("touchMove", [(cx + 12 * k, cy + 6 * k)])
    touch("touchEnd", [])
    dragged = page.evaluate(VIEW)
    assert dragged["svg"][0] == pytest.approx(pinched["svg"][0] + 60, abs=1)
    assert dragged["svg"][1] == pytest.approx(pinched["svg"][1] + 30, abs=1)
    page.wait_for_timeout(400)  # a tap at once would be taken for the second of a double tap
    page.locator(".ldr-zoom__fit").tap()
    assert fits(page.evaluate(VIEW))
    context.close()


def test_the_viewer_works_from_the_keyboard_and_keeps_the_page(project_site, open_page):
    page, watch = open_page(project_site.url(PART0), width=1440, height=900)
    button = page.locator("#figure-two-clocks button.ldr-figure-open")
    button.scroll_into_view_if_needed()  # its run of far blocks is drawn (content-visibility: auto)
    settle(page)
    assert "Enlarge" in button.get_attribute("aria-label") and button.inner_text() == "Enlarge"
    button.focus()
    # the blocks the scroll brought near are drawn in the next frames (content-visibility: auto)
    settle(page)
    before = page.evaluate("() => [scrollY, document.documentElement.scrollHeight]")
    page.keyboard.press("Enter")
    dialog = page.locator("dialog.ldr-zoom[open]")
    dialog.wait_for()
    assert page.evaluate("() => document.activeElement.textContent") == "Close"
    assert dialog.locator(".ldr-zoom__title").inner_text().startswith("Two clocks")
    # opened whole, fitted to the screen; + zooms, arrows pan, 0 fits again
    fitted = page.evaluate(VIEW)
    assert fits(fitted) and fitted["zoom"] == "fit"
    page.keyboard.press("+")
    page.keyboard.press("+")
    zoomed = page.evaluate(VIEW)
    assert zoomed["svg"][4] == pytest.approx(fitted["svg"][4] * 1.5625, rel=0.01)
    dialog.locator(".ldr-zoom__pane").focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate(VIEW)["svg"][0] < zoomed["svg"][0]
    page.keyboard.press("0")
    assert page.evaluate(VIEW) == fitted
    for name in ("Zoom out", "Fit to the screen", "Zoom in", "Close"):
        control = dialog.get_by_role("button", name=name)
        box = control.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24, (name, box)
    # the page behind keeps its length while the drawing is away (no jump on return)
    assert page.evaluate("() => [scrollY, document.documentElement.scrollHeight]") == before
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
    assert page.evaluate("() => document.activeElement.classList.contains('ldr-figure-open')"
                         " && !!document.activeElement.closest('#figure-two-clocks')")
    assert page.locator("#figure-two-clocks svg.ldr-drawing").evaluate("s => s.style.width + s.style.transform") == ""
    # the Close button too
    button.click()
    dialog.wait_for()
    # the drawing is back in its figure as the viewer shuts, not a task later (the "close" event)
    assert page.evaluate("""() => { document.querySelector('dialog.ldr-zoom[open] .ldr-zoom__close').click();
      return [!!document.querySelector('dialog.ldr-zoom[open]'),
              document.querySelectorAll('#figure-two-clocks svg.ldr-drawing').length]; }""") == [False, 1]
    # a tap on the drawing itself opens it as well
    # a click on the drawing itself (dispatched on it: the figure's listener takes it as it bubbles)
    page.locator("#figure-two-clocks svg.ldr-drawing").dispatch_event("click")
    dialog.wait_for()
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('dialog.ldr-zoom[open]')")
    assert page.locator("svg.ldr-drawing[id], svg.ldr-drawing [id]").evaluate_all(
        "els => els.length === new Set(els.map(e => e.id)).size"), "ids repeated"
    watch.check()


def test_enlarge_arrives_without_moving_the_page(project_site, browser):
    """The button joins the row the download link already holds: the row keeps its height, so
    nothing under a drawing moves when the script runs."""
    heights = {}
    for javascript in (False, True):
        context = browser.new_context(viewport=PHONE, java_script_enabled=javascript)
        page = context.new_page()
        page.goto(project_site.url(PART0), wait_until="load")
        if javascript:
            page.wait_for_function("() => document.querySelector('#figure-floors[data-ldr-ready]')")
        heights[javascript] = page.evaluate("() => Array.from(document.querySelectorAll('.ldr-figure-tools'))"
                                            ".map(r => r.getBoundingClientRect().height)")
        context.close()
    assert len(heights[True]) >= 3 and heights[True] == heights[False]


def test_without_javascript_a_figure_is_the_plain_drawing(project_site, open_page):
    page, _ = open_page(project_site.url(PART0), javascript=False, **PHONE)
    assert page.locator("button.ldr-figure-open").count() == 0
    assert page.locator("figure.ldr-figure .ldr-figure-tools a.ldr-figure-edit:visible").count() >= 3


def test_drawing_screenshots_light_and_dark(project_site, open_page):
    SCREENSHOTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        page, watch = open_page(project_site.url(PART0), scheme=scheme, **PHONE)
        for size, viewport in (("phone", PHONE), ("desktop", {"width": 1440, "height": 900})):
            page.set_viewport_size(viewport)
            figure = page.locator("#figure-two-clocks")
            figure.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / f"phone-figure-{scheme}-{size}.png"))
            figure.locator("button.ldr-figure-open").click()
            page.locator("dialog.ldr-zoom[open]").wait_for()
            page.screenshot(path=str(SCREENSHOTS / f"phone-zoom-{scheme}-{size}.png"))
            page.keyboard.press("Escape")
        watch.check()


# --- the depth meter ------------------------------------------------------------------------------

EXPECTED_FLOOR = """() => {
  // the section the table of contents marks, and the floor it is on: its own, else its
  // parent section's, else none
  const link = document.querySelector('[data-md-component=toc] .md-nav__link--active');
  if (!link) return [null, null];
  const target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
  const heads = Array.from(document.querySelectorAll('.md-content :is(h1,h2,h3,h4,h5,h6)[id]'));
  let level = 7;
  for (let i = heads.indexOf(target); i >= 0; i--) {
    const h = heads[i], l = +h.tagName[1];
    if (l >= level) continue;
    if (h.dataset.floor) return [target.id, h.dataset.floor];
    level = l;
  }
  return [target.id, null];
}"""

METER_FLOOR = """() => {
  const lit = document.querySelectorAll('[data-ldr-meter] a[aria-current=location]');
  return [lit.length, lit.length ? lit[0].parentElement.dataset.floor : null,
          document.querySelector('.ldr-meter__now').textContent];
}"""


# Both, and where the page can still scroll to, read at once after a move.
BOTH = f"""() => ({{expected: ({EXPECTED_FLOOR})(), meter: ({METER_FLOOR})(),
  end: document.documentElement.scrollHeight - innerHeight,
  bottom: scrollY >= document.documentElement.scrollHeight - innerHeight - 1}})"""


@pytest.mark.parametrize("viewport", [{"width": 1440, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_meter_and_table_of_contents_agree_down_part_0(project_site, open_page, viewport):
    page, watch = open_page(project_site.url(PART0), **viewport)
    step = viewport["height"] // 2
    seen_sections, floorless = set(), set()

    def agree(where: str, got: dict) -> None:
        (section, floor), (count, lit, now) = got["expected"], got["meter"]
        assert (lit if count else None) == floor and count == (1 if floor else 0), \
            f"at {where} the contents mark #{section} (floor {floor}), the meter lights {lit} ({count})"
        if not floor:
            assert now == "", f"at {where} the phone bar still names {now!r}"
            floorless.add(section)
        seen_sections.add(section)

    # down to the foot, however the page's height changes on the way: blocks off screen stand in
    # at an estimated height until drawn (content-visibility: auto)
    y, bottom = 0, False
    while not bottom:
        got = move_and_read(page, SCROLL_TO, y, BOTH)
        agree(f"{y}px", got)
        bottom = got["bottom"]
        y = min(y + step, got["end"])
        assert y < 100 * viewport["height"], "the page never ends"
    # and each section as a link in the contents opens it (a short one can fall between two steps):
    # four frames, so that what the scroll brought near is drawn and the page settles around it
    for ident in page.evaluate("() => [...document.querySelectorAll('.md-content h2[id]')].map(h => h.id)"):
        agree(f"#{ident}", move_and_read(page, "id => document.getElementById(id).scrollIntoView()", ident, BOTH,
                                         frames=4))
    assert len(seen_sections) >= 15
    # the sections on no floor light none
    for section in ("the-territory", "twelve-ideas", "how-to-read-the-series", "references"):
        assert section in floorless or section not in seen_sections, section
    assert {"the-territory", "twelve-ideas", "references"} <= floorless
    watch.check()


def test_without_a_table_of_contents_the_meter_applies_the_same_rule(project_site, open_page):
    """A page whose table of contents is not there (hidden, or another theme's): the meter finds
    the section itself and lights what the contents would have marked."""
    positions, expected = [], []
    page, _ = open_page(project_site.url(PART0))
    height = page.evaluate("() => document.documentElement.scrollHeight - innerHeight")
    # near every heading (where the two rules could part) and a stride through the rest
    tops = page.evaluate("() => Array.from(document.querySelectorAll('.md-content h2[id], .md-content h3[id]'))"
                         ".map(h => Math.round(h.getBoundingClientRect().top + scrollY))")
    near = [t - d for t in tops for d in (40, 60, 80) if 0 <= t - d <= height]
    for y in sorted(set(near + list(range(0, height, 1400)) + [height])):
        positions.append(y)
        expected.append(move_and_read(page, SCROLL_TO, y, EXPECTED_FLOOR)[1])
    assert None in expected and len(set(expected)) >= 6
    page.context.route("**/" + PART0, lambda route: route.fulfill(
        response=(r := route.fetch()), body=r.text().replace('data-md-component="toc"', "")))
    page.goto(project_site.url(PART0), wait_until="load")
    page.wait_for_function("() => !!document.querySelector('[data-ldr-meter][data-ldr-ready]')")
    assert page.locator("[data-md-component=toc]").count() == 0
    for y, floor in zip(positions, expected):
        count, lit, _ = move_and_read(page, SCROLL_TO, y, METER_FLOOR)
        assert (lit if count else None) == floor, f"at {y}px"


def test_floorless_sections_and_subsections(project_site, open_page):
    page, watch = open_page(project_site.url(PART0))
    cases = [("the-territory", None), ("twelve-ideas", None), ("try-it-yourself", None),
             ("device-runtime", "runtime"), ("dispatcher", "dispatcher")]
    for heading, floor in cases:
        page.evaluate("id => { const h = document.getElementById(id); window.scrollTo(0, h.getBoundingClientRect().top"
                      " + scrollY - 20 - document.querySelector('.md-header').offsetHeight); }", heading)
        settle(page)
        count, lit, _ = page.evaluate(METER_FLOOR)
        assert (lit if count else None) == floor, heading
    watch.check()


def test_floorless_page_shows_no_meter_bar_on_a_phone(project_site, open_page):
    floorless = [p.parent.relative_to(project_site.folder).as_posix() + "/"
                 for p in sorted(project_site.folder.glob("part-*/index.html"))
                 if "ldr-rail--empty" in p.read_text(encoding="utf-8")]
    assert floorless, "no part without floors to check"
    page, watch = open_page(project_site.url(floorless[0]), **PHONE)
    assert not page.locator(".ldr-rail").is_visible()
    room = "() => getComputedStyle(document.querySelector('.md-content')).paddingBottom"
    assert page.evaluate(room) == "0px"  # no room kept under the text for a bar that is not there
    watch.check()
    # beside the text on a wide screen it still says the page has no floor
    page, _ = open_page(project_site.url(floorless[0]))
    assert page.locator(".ldr-meter__none").is_visible()
    # a page with floors keeps its bar
    page, _ = open_page(project_site.url(PART0), **PHONE)
    assert page.locator(".ldr-rail").is_visible()
    bar = page.evaluate("() => document.querySelector('.ldr-rail').getBoundingClientRect().height")
    assert float(page.evaluate(room).removesuffix("px")) >= bar  # and room under the text for it


# --- reading flow ---------------------------------------------------------------------------------

def test_each_part_ends_with_a_link_to_the_next(project_site, open_page):
    parts = sorted(p.parent.name for p in project_site.folder.glob("part-*/index.html"))
    assert len(parts) >= 12
    for here, there in zip(parts, parts[1:] + [None]):
        html = (project_site.folder / here / "index.html").read_text(encoding="utf-8")
        links = re.findall(r'<nav class="ldr-next-part"[^>]*>\s*<a href="([^"]+)"', html)
        assert links == ([f"../{there}/"] if there else []), here
    # the link is the end of the chapter, and instant navigation follows it
    page, watch = open_page(project_site.url(PART0))
    last = page.evaluate("() => { const a = document.querySelector('.md-content__inner');"
                         " return Array.from(a.children).filter(e => e.offsetParent).pop().className; }")
    assert "ldr-next-part" in last
    assert page.locator(".ldr-next-part__title").inner_text() == "Part 1: The Tensor"
    page.evaluate("() => { window.__ldrSamePage = true; }")
    instant_ready(page)
    page.click(".ldr-next-part a")
    page.wait_for_url("**/part-01-the-tensor/")
    page.wait_for_function("() => document.querySelector('.ldr-next-part__title')"
                           " && document.querySelector('.ldr-next-part__title').textContent === 'Part 2: Autograd'")
    assert page.evaluate("() => window.__ldrSamePage === true"), "navigation was not instant"
    # the swapped page's drawings open full screen too
    page.wait_for_function("() => document.querySelectorAll("
                           "'figure.ldr-figure[data-ldr-ready] button.ldr-figure-open').length"
                           " === document.querySelectorAll('figure.ldr-figure svg.ldr-drawing').length")
    page.locator("#figure-part1-transpose button.ldr-figure-open").press("Enter")
    page.locator("dialog.ldr-zoom[open] svg.ldr-drawing").wait_for()
    page.keyboard.press("Escape")
    watch.check()


@pytest.mark.parametrize("scheme, expected", [("dark", "slate"), ("light", "default")])
def test_first_visit_follows_the_system_scheme(project_site, open_page, scheme, expected):
    page, watch = open_page(project_site.url(PART0), scheme=scheme, **PHONE)
    assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == expected
    watch.check()


def test_the_scene_link_is_short_and_no_part_of_the_figures_name(project_site, open_page):
    page, watch = open_page(project_site.url(PART0), **PHONE)
    draw_all(page)  # names and text as a reader finds them, every run of far blocks drawn
    link = page.locator("#figure-floors .ldr-figure-tools a.ldr-figure-edit")
    text = link.inner_text()
    assert "Download" in text and ".excalidraw" in text and len(text.split()) <= 5
    assert link.get_attribute("download") is not None
    assert link.get_attribute("href").endswith("drawings/floors.excalidraw")
    assert "excalidraw.com" in link.get_attribute("title")  # how to open it, for who asks
    # each figure is named by its caption alone (the accessible name as the spec computes it, from
    # the figcaption): no download instruction read out with every drawing
    captions = page.locator("figure.ldr-figure figcaption")
    assert captions.count() >= 4
    for k in range(captions.count()):
        caption = captions.nth(k).inner_text().strip()
        ident = captions.nth(k).evaluate("c => c.closest('figure').id")
        assert "download" not in caption.lower() and "excalidraw" not in caption.lower(), ident
        named = page.get_by_role("figure", name=caption, exact=True)
        assert named.count() == 1 and named.get_attribute("id") == ident, (ident, caption)
        # its Enlarge button names it by its caption's first sentence, not by its whole description
        enlarge = page.locator(f"#{ident} button.ldr-figure-open").get_attribute("aria-label")
        assert enlarge == "Enlarge the drawing: " + re.split(r"[.:;](?:\s|$)", caption)[0], (ident, enlarge)
        assert len(enlarge.split()) <= 20, (ident, enlarge)
    watch.check()  # and the page asked nothing of excalidraw.com
