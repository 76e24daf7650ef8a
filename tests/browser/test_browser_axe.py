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
from browser_support import ROOT

AXE_VERSION = "4.14.1"
AXE = ROOT / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
AXE_INSTALL = f"npm install --no-save --prefix .cache/npm axe-core@{AXE_VERSION}"
OURS = "[class^='ldr-'], [class*=' ldr-'], figure, [data-ldr-meter]"
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
  return {found, passes: result.passes.length};
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
    page.add_script_tag(path=str(axe_source()))
    return page.evaluate(RUN, [OURS, TAGS])


def test_axe_core_is_the_pinned_version():
    axe_source()
    assert f'"version": "{AXE_VERSION}"' in (AXE.parent / "package.json").read_text()


def test_no_wcag_violation_in_our_elements_on_any_page(project_site, open_page):
    pages = site_pages(project_site)
    assert "part-00-the-map/" in pages and any(p.startswith("theme-check") for p in pages)
    problems, ours_seen = [], 0
    for path in pages:
        page, _ = open_page(project_site.url(path))
        ours_seen += page.locator(OURS).count()
        for scheme in ("light", "dark"):
            if scheme == "dark":
                to_dark(page)
            result = scan(page)
            assert result["passes"] > 0, path  # axe ran its rules
            problems += [f"{path or '/'} ({scheme}) {v['rule']}: {v['target']}: {v['why']}\n    {v['html']}"
                         for v in result["found"] if v["ours"]]
        page.context.close()
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


@pytest.mark.parametrize("width", [1440, 390])
def test_every_control_of_ours_shows_where_the_keyboard_is(project_site, open_page, width):
    """Tab through each page: every element of ours that takes the focus draws a ring (an outline
    or a box shadow) while it has it: the toll meter's slider drew none."""
    missing, ours = [], 0
    for path in FOCUS_PAGES:
        page, watch = open_page(project_site.url(path), width=width, height=900 if width > 800 else 844)
        first = None
        for _ in range(1500):
            page.keyboard.press("Tab")
            got = page.evaluate(FOCUSED, OURS + ", pre, .md-typeset__scrollwrap")
            if got is None or got["key"] == first:
                break  # round the page and back to the start
            first = first or got["key"]
            if got["ours"]:
                ours += 1
                if not got["ring"]:
                    missing.append(f"/{path}: {got['what']}")
        watch.check()
        page.context.close()
    assert ours > 200  # the walk reached the instruments, figures, cards and meter
    assert not missing, f"{len(missing)} focused element(s) of ours show no ring at {width} px:\n" + \
        "\n".join(dict.fromkeys(missing))
