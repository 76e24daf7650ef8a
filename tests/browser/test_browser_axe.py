"""axe-core finds no WCAG 2.1 A/AA violation in the series' own elements, light or dark, on
every page of the built site.

axe-core comes from npm, pinned; `.ci/run` installs it into .cache/npm (see AXE_INSTALL). The
page gets it through ``page.add_script_tag`` (no request leaves localhost).

What counts as ours: a violation node whose element is, or sits inside, an element with a class
starting ``ldr-`` (cards, excerpts, values, claims, instruments, drift, corrections, figures'
``ldr-`` wrappers), a ``<figure>``, or the depth meter (``[data-ldr-meter]``); the test finds it
with ``Element.closest`` on axe's own element reference. Everything else (mkdocs-material's
header, navigation, footer, search, prose links and highlighted code) is the theme's, and left
out; ``test_the_filter_sees_ours_and_leaves_the_theme_out`` proves the filter can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import ROOT, Visits, draw_all, visit

AXE_VERSION = "4.14.1"
AXE = ROOT / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
AXE_INSTALL = f"npm install --no-save --prefix .cache/npm axe-core@{AXE_VERSION}"
# (a run of far blocks, div.ldr-far, only holds the author's prose: not an element of ours)
OURS = ":is([class^='ldr-'], [class*=' ldr-']):not(.ldr-far), figure, [data-ldr-meter]"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

RUN = """async ([ours, tags]) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, elementRef: true});
  const found = [];
  for (const v of result.violations) for (const n of v.nodes) {
    // no element reference (a frame) counts as ours: nothing is waved through unseen
    // prose links are ours too: the series' palette (theme/assets/ldr.css) sets their colour
    const mine = !n.element || !!n.element.closest(ours)
                 || (v.id === "link-in-text-block" && !!n.element.closest(".md-content"));
    found.push({rule: v.id, ours: mine, target: n.target.join(" "), html: n.html.slice(0, 160),
                why: (n.failureSummary || "").split("\\n").slice(1, 2).join("").trim()});
  }
  return {found, passes: result.passes.length, ours: document.querySelectorAll(ours).length,
          scheme: document.body.getAttribute("data-md-color-scheme")};
}"""


def axe_source() -> Path:
    if not AXE.is_file():
        pytest.fail(f"axe-core is missing ({AXE.relative_to(ROOT)}); install it with `{AXE_INSTALL}` "
                    "(bash .ci/run does)", pytrace=False)
    return AXE


def site_pages(site) -> list[str]:
    folder = Path(site.server.RequestHandlerClass.keywords["directory"])
    paths = (p.relative_to(folder).parent.as_posix() for p in folder.rglob("index.html") if "assets" not in p.parts)
    return sorted("" if path == "." else path + "/" for path in paths)


def to_dark(page):
    page.click("label[for='__palette_1']:visible")
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")


def scan(page) -> dict:
    draw_all(page)  # axe finds no box in a skipped block, and would leave its colours unchecked
    page.add_script_tag(path=str(axe_source()))
    return page.evaluate(RUN, [OURS, TAGS])


def test_axe_core_is_the_pinned_version():
    axe_source()
    assert f'"version": "{AXE_VERSION}"' in (AXE.parent / "package.json").read_text()


def test_no_wcag_violation_in_our_elements_on_any_page(project_site, browser):
    """Each page in light, then in the dark scheme (the reader's toggle, clicked). One page visits
    them all in turn (a full load each): axe's findings do not depend on a fresh browser context,
    and the stored scheme is cleared before the next page, which must then open light."""
    pages = site_pages(project_site)
    assert "part-00-the-map/" in pages and any(p.startswith("theme-check") for p in pages)
    problems, ours_seen, scanned = [], 0, []
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="light")
    try:
        page = context.new_page()
        for path in pages:
            visit(page, project_site.url(path))
            draw_all(page)  # axe finds no box in a skipped block, and would leave its colours unchecked
            page.add_script_tag(path=str(axe_source()))  # once: switching the scheme does not reload the page
            for scheme, expected in (("light", "default"), ("dark", "slate")):
                if scheme == "dark":
                    to_dark(page)
                result = page.evaluate(RUN, [OURS, TAGS])
                assert result["scheme"] == expected, (path, scheme, result["scheme"])
                assert result["passes"] > 0, path  # axe ran its rules
                scanned.append((path, scheme))
                ours_seen += result["ours"] if scheme == "light" else 0
                problems += [f"{path or '/'} ({scheme}) {v['rule']}: {v['target']}: {v['why']}\n    {v['html']}"
                             for v in result["found"] if v["ours"]]
            page.evaluate("() => localStorage.clear()")  # the scheme the toggle stored: the next page opens light
    finally:
        context.close()
    assert scanned == [(path, scheme) for path in pages for scheme in ("light", "dark")]
    assert ours_seen > 100  # the pages hold our elements: the filter has something to look at
    assert not problems, f"{len(problems)} axe violation(s) in our elements:\n" + "\n".join(problems)


def test_the_filter_sees_ours_and_leaves_the_theme_out(project_site, open_page):
    """An image without alt text inside an ldr- element is reported; one in the theme's header is not."""
    page, watch = open_page(project_site.url("part-00-the-map/"))
    page.evaluate("""() => {
      const img = () => Object.assign(document.createElement("img"),
                                      {src: "data:image/gif;base64,R0lGODlhAQABAAAAACw=", width: 20, height: 20});
      document.querySelector(".ldr-instrument").appendChild(img()).setAttribute("data-probe", "ours");
      document.querySelector(".md-header").appendChild(img()).setAttribute("data-probe", "theirs");
    }""")
    found = [v for v in scan(page)["found"] if v["rule"] == "image-alt"]
    probes = {("ours" if 'data-probe="ours"' in v["html"] else "theirs"): v["ours"]
              for v in found if "data-probe" in v["html"]}
    assert probes == {"ours": True, "theirs": False}
    watch.check()


# --- focus that shows (WCAG 2.4.7) ----------------------------------------------------------------

FOCUSED = """ours => { const e = document.activeElement;
  if (!e || e === document.body) return null;
  const s = getComputedStyle(e);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
  const name = (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40);
  return {ours: !!e.closest(ours), ring, what: e.tagName + '.' + String(e.className.baseVal !== undefined
    ? e.className.baseVal : e.className).replace(' focus-visible', '') + ' ' + JSON.stringify(name),
    key: e.tagName + name + Math.round(e.getBoundingClientRect().top + scrollY)}; }"""
FOCUS_PAGES = ["part-00-the-map/", "part-01-the-tensor/", "part-02-autograd/", "theme-check/part-01-instruments/",
               "theme-check/part-02-instruments/", ""]


# Each Tab's focus, read in the page as the key comes up (the press has moved the focus by then):
# one round trip a press instead of two. Every press must be seen (a page that swallowed the key
# would leave a gap, and the count check fails). ``again``: the first element focused has the
# focus again, so the walk has gone round the page. It is that element itself, not a key of tag,
# name and top plus scrollY: the skip link is fixed, so its key read at the end of the page never
# matched the one read at the top, and a walk with no press on the body between two rounds went
# round again (800 presses for a page of 400). A press that leaves the focus on the body (null)
# does not end the walk:
# it happens past the last element, and it did in mid page, on some runs: a source quote's code
# box carried tabindex="0" in its markup though it wraps and never scrolls; mkdocs-material takes
# the tabindex away once it has measured the box, and a box focused before then lost the focus to
# the body (test_browser_codeboxes.py now checks the markup). The walk ended there, 79 presses
# into a page of 400, and left the rest unchecked; the next Tab goes on from where the box is.
RECORD_TABS = ("ours => { const focused = " + FOCUSED + """;
  window.__ldrTabs = [];
  let first = null;
  addEventListener("keyup", e => {
    if (e.key !== "Tab") return;
    const got = focused(ours);
    if (got) { got.again = document.activeElement === first; first = first || document.activeElement; }
    __ldrTabs.push(got);
  }, true); }""")
TABS_AT_ONCE = 20  # presses between two reads of the record; at most this many past the end of a walk


def tab_walk(page, ours: str, limit: int = 1500) -> list[dict]:
    """Press Tab until the first element focused has the focus again (at most ``limit`` times):
    what each press focused, once round the page."""
    page.evaluate(RECORD_TABS, ours)
    seen: list = []
    while len(seen) < limit:
        presses = min(TABS_AT_ONCE, limit - len(seen))
        for _ in range(presses):
            page.keyboard.press("Tab")
        new = page.evaluate("n => __ldrTabs.slice(n)", len(seen))
        assert len(new) == presses, f"{presses} Tab presses, {len(new)} seen by the page"
        seen += new
        end = next((i for i, got in enumerate(seen) if got is not None and got["again"]), None)
        if end is not None:
            return [got for got in seen[:end] if got is not None]  # round the page and back to the start
    return [got for got in seen if got is not None]


@pytest.mark.parametrize("width", [1440, 390])
def test_every_control_of_ours_shows_where_the_keyboard_is(project_site, browser, width):
    """Tab through each page: every element of ours that takes the focus draws a ring (an outline
    or a box shadow) while it has it: the toll meter's slider drew none. One page visits the pages
    in turn (a full load each, so the walk starts at the top of a new document)."""
    missing, ours = [], 0
    context = browser.new_context(viewport={"width": width, "height": 900 if width > 800 else 844},
                                  color_scheme="light")
    try:
        page = context.new_page()
        watch = Visits(page)
        for path in FOCUS_PAGES:
            visit(page, project_site.url(path))
            for got in tab_walk(page, OURS + ", pre, .md-typeset__scrollwrap"):
                if got["ours"]:
                    ours += 1
                    if not got["ring"]:
                        missing.append(f"/{path}: {got['what']}")
            watch.check_visit(f"/{path}")
    finally:
        context.close()
    assert ours > 200  # the walk reached the instruments, figures, cards and meter
    assert not missing, f"{len(missing)} focused element(s) of ours show no ring at {width} px:\n" + \
        "\n".join(dict.fromkeys(missing))
