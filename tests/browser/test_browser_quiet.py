"""Light, calm pages (issue 20), in Chromium at 1440 and 390 px, light and dark: a claim that holds
is a quiet "✓ checked" at the end of its paragraph that opens onto its check, one that does not
hold is a loud box; an inline value is text whose provenance shows on focus, not a link that jumps
away; the corrections note is prose at the end of the part with its list folded; the drift page
fits a phone's width, breaks keys at their dots and keeps its headings in order."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

LAPTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
PART0 = "part-00-the-map/"
DRIFT = "drift/2.13.0-to-2.14.1/"  # the summary: a row per proof
DETAILS = "drift/2.13.0-to-2.14.1/every-value/"  # the full report it links to

# Where each claim that holds sits: on the line of the paragraph before it, or on a line of its own.
CLAIMS = """() => {
  const out = {holds: 0, boxed: 0, afterParagraph: 0, onItsLine: 0, tallest: 0, sentence: 0};
  for (const d of document.querySelectorAll('.md-content details.ldr-claim')) {
    out.holds++;
    const summary = d.querySelector('summary'), mark = summary.getBoundingClientRect();
    const style = getComputedStyle(d), sstyle = getComputedStyle(summary);
    if (style.display === 'block' || parseFloat(sstyle.borderTopWidth) > 0 && sstyle.borderTopStyle !== 'none'
        || parseFloat(style.borderTopWidth) > 0 && style.borderTopStyle !== 'none') out.boxed++;
    out.tallest = Math.max(out.tallest, d.getBoundingClientRect().height);
    if (/checked against/.test(summary.innerText)) out.sentence++;
    const prev = d.previousElementSibling;
    if (prev && prev.tagName === 'P') {
      out.afterParagraph++;
      const lines = prev.getClientRects(), last = lines[lines.length - 1];
      if (mark.top < last.bottom - 2 && mark.bottom > last.top + 2) out.onItsLine++;
    }
  }
  return out;
}"""


def test_a_claim_that_holds_is_a_quiet_mark_on_its_paragraphs_line(project_site, open_page):
    for size in (LAPTOP, PHONE):
        page, watch = open_page(project_site.url(PART0), **size)
        seen = page.evaluate(CLAIMS)
        assert seen["holds"] >= 20, seen
        assert seen["boxed"] == 0 and seen["sentence"] == 0, seen  # no pill, no "checked against" line
        assert seen["tallest"] < 30, seen  # one short line at most
        assert seen["afterParagraph"] >= 10 and seen["onItsLine"] >= 0.7 * seen["afterParagraph"], seen
        watch.check()
    # opened, it shows the statement, the torch it was checked against, the check and its values
    claim = page.locator(".md-content details.ldr-claim[data-proof]").first
    claim.locator("summary").click()
    detail = claim.locator(".ldr-claim__values")
    assert detail.is_visible()
    text = claim.inner_text()
    assert re.search(r"Checked against torch \d+\.\d+\.\d+ \(cpu\) on every build: ", text), text
    assert re.fullmatch(r"(\S+ = [^\n]+\n?)+", detail.inner_text()), detail.inner_text()  # a value a line
    assert page.evaluate("() => document.documentElement.scrollWidth") == PHONE["width"]


def test_two_paragraphs_each_ending_in_a_claim_stay_two_paragraphs(project_site, open_page):
    page, _ = open_page(project_site.url(PART0), **LAPTOP)
    gaps = page.evaluate(r"""() => {
      const out = [];
      for (const p of document.querySelectorAll('.md-content details.ldr-claim + p')) {
        // where the paragraph's first letter is drawn, against the mark before it
        const walk = document.createTreeWalker(p, NodeFilter.SHOW_TEXT, n => /\S/.test(n.data) ? 1 : 3);
        const text = walk.nextNode(), at = text.data.search(/\S/), range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + 1);
        out.push(range.getBoundingClientRect().top - p.previousElementSibling.getBoundingClientRect().bottom);
      }
      return out;
    }""")
    assert gaps and min(gaps) >= 10, gaps  # a paragraph's gap, not the next line of the same one


def _broken_site(tmp_path):
    """A small real build with one claim that holds and one that no longer does (a warning, so
    not strict), served on 127.0.0.1."""
    from browser_support import Served

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from tests.core.conftest import Project
    from tests.core.recordkit import record

    project = Project(tmp_path)
    project.proof("toll", 'import json\nprint("TOLL=" + json.dumps({"small_us": 4.1, "large_us": 1780.2}))\n')
    record(project, "toll", data={"TOLL": {"small_us": 4.1, "large_us": 1780.2}}, stdout=["one add, timed"])
    project.page("index.md", """\
        # Claims

        A big add is slow: it costs {{ toll.TOLL.large_us | ,.0f }} µs.

        ```claim
        proof: toll
        check: TOLL.large_us > 100 * TOLL.small_us
        say: A big add costs over a hundred small ones.
        ```

        And it is slower than a thousand small ones.

        ```claim
        proof: toll
        check: TOLL.large_us > 1000 * TOLL.small_us
        say: A big add costs over a thousand small ones.
        ```

        ```proof
        toll
        ```
        """)
    built = project.build(strict=False)
    assert built.returncode == 0, built.stderr
    assert "claim does not hold" in built.stderr  # the build warns
    return Served(tmp_path / "site", "claims")


def test_a_claim_that_does_not_hold_stays_loud(tmp_path, browser):
    from browser_support import Watch

    served = _broken_site(tmp_path)
    try:
        for scheme in ("light", "dark"):
            for size in (LAPTOP, PHONE):
                context = browser.new_context(viewport=size, color_scheme=scheme)
                page = context.new_page()
                watch = Watch(page)
                page.goto(served.url(), wait_until="load")
                broken = page.locator(".ldr-claim--broken")
                assert broken.count() == 1 and broken.is_visible()
                look = broken.evaluate("""b => { const s = getComputedStyle(b), r = b.getBoundingClientRect(),
                    col = b.parentElement.getBoundingClientRect();
                    return {display: s.display, border: parseFloat(s.borderTopWidth), style: s.borderTopStyle,
                            width: r.width / col.width, folded: !!b.closest('details'), text: b.innerText}; }""")
                assert look["display"] == "block" and look["border"] >= 2 and look["style"] == "solid", look
                assert look["width"] > 0.9 and not look["folded"], look  # the width of the text, nothing to open
                assert look["text"].startswith("This claim does not hold on the run of"), look
                assert "TOLL.large_us = 1,780" in look["text"] and "1000 * TOLL.small_us" in look["text"]
                # the one that holds is still a quiet mark on its paragraph's line
                seen = page.evaluate(CLAIMS)
                assert seen == {**seen, "holds": 1, "boxed": 0, "afterParagraph": 1, "onItsLine": 1}, seen
                watch.check()
                context.close()
    finally:
        served.close()


FOCUS = """v => { const after = getComputedStyle(v, '::after'), r = v.getBoundingClientRect();
  return {content: after.content, position: after.position, bottom: parseFloat(after.bottom),
          tag: v.tagName, tabindex: v.getAttribute('tabindex'), title: v.title, card: v.dataset.card,
          inView: r.top >= 0 && r.bottom <= innerHeight}; }"""


def test_an_inline_value_is_text_with_its_provenance_on_focus(project_site, open_page):
    page, watch = open_page(project_site.url(PART0), **PHONE)
    assert page.locator(".md-content a.ldr-value").count() == 0  # no number is a link
    values = page.locator(".md-content .ldr-value[data-proof]")
    assert values.count() >= 20
    cards = set(page.evaluate("() => [...document.querySelectorAll('.md-content .ldr-value[data-proof]')]"
                              ".map(v => v.dataset.card)"))
    for card in cards:  # each value still names the card that measured it, on this page or another
        assert re.fullmatch(r"([a-z0-9-]+/)?#proof-[a-z0-9_]+", card), card
        if card.startswith("#"):
            assert page.locator(card).count() == 1, card
        else:  # from the site's root
            assert (project_site.folder / card.split("#")[0] / "index.html").is_file(), card
    value = values.nth(3)
    before = page.url
    value.click()  # a tap or a click focuses it: its provenance shows in a bar at the foot of the screen
    look = value.evaluate(FOCUS)
    assert look["tag"] == "SPAN" and look["tabindex"] == "0", look
    assert look["content"] == json.dumps(look["title"]) and look["position"] == "fixed", look
    assert re.match(r"[a-z0-9_]+: [A-Z_]+[\w.]* = .+ \(torch \d+\.\d+\.\d+, .+\)$", look["title"]), look
    assert page.url == before and look["inView"], look  # the page did not jump to the card
    bar = page.evaluate("""() => { const v = document.activeElement, a = getComputedStyle(v, '::after');
        return [parseFloat(a.left), parseFloat(a.right)]; }""")
    assert bar[0] >= 0 and bar[1] >= 0
    assert page.evaluate("() => document.documentElement.scrollWidth") == PHONE["width"]
    watch.check()


def test_the_corrections_note_closes_the_part_in_words(project_site, open_page):
    for size, most in ((LAPTOP, 1.0), (PHONE, 1.8)):
        page, watch = open_page(project_site.url(PART0), **size)
        where = page.evaluate("""() => {
          const top = e => e.getBoundingClientRect().top + scrollY;
          const note = document.querySelector('.md-content aside.ldr-corrections');
          const figure = document.querySelector('.md-content figure.ldr-figure');
          const headings = [...document.querySelectorAll('.md-content h2')];
          return {note: top(note), figure: top(figure), screens: top(figure) / innerHeight,
                  lastHeading: headings[headings.length - 1].textContent.trim(),
                  afterLast: top(note) > top(headings[headings.length - 1]),
                  summary: note.querySelector('.ldr-corrections__summary').innerHTML,
                  open: note.querySelector('details').open, shown: note.innerText}; }""")
        assert where["figure"] < where["note"] and where["screens"] < most, where
        assert where["lastHeading"].startswith("Corrections") and where["afterLast"], where
        assert "<code>" not in where["summary"] and "<del>" not in where["summary"], where["summary"]
        assert re.search(r"\d+ values? quoted on this page changed, in ", where["summary"]), where["summary"]
        assert not where["open"] and "where_code_lives." not in where["shown"]  # keys one click away
        watch.check()
    page.locator("aside.ldr-corrections details > summary").click()
    shown = page.locator("aside.ldr-corrections").inner_text()
    assert "where_code_lives.EXTENSION.bytes" in shown.replace("\u200b", "") and "→" in shown
    assert page.evaluate("() => document.documentElement.scrollWidth") == PHONE["width"]


# Each key of the report: how many lines it takes, against the parts it may break between.
KEYS = """() => [...document.querySelectorAll('.ldr-drift__key code')].map(c => {
  const lines = new Set([...c.getClientRects()].map(r => Math.round(r.top))).size;
  const parts = c.textContent.split(/[.\\[\\]\\/\\- ]+/).filter(Boolean).length;
  return [c.textContent, lines, parts]; })"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_drift_summary_is_a_row_per_proof_each_linking_to_its_part_of_the_full_report(
        project_site, open_page, scheme):
    for size in (PHONE, LAPTOP):
        page, watch = open_page(project_site.url(DRIFT), scheme=scheme, **size)
        width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"the page pans sideways at {size['width']} px: {width}"
        assert page.locator(".ldr-drift__values, .ldr-drift__output").count() == 0  # details one click away
        rows = page.locator("table.ldr-drift__sum tbody tr")
        assert rows.count() >= 5
        stacked = rows.first.evaluate("r => getComputedStyle(r).display")
        assert stacked == ("block" if size is PHONE else "table-row"), stacked
        if size is PHONE:  # each cell says what it is, the header row being off screen
            label = rows.first.locator("td[data-label=values]").evaluate("c => getComputedStyle(c, '::before').content")
            assert label == '"values: "', label
        levels = page.evaluate("() => [...document.querySelectorAll('.md-content h1, .md-content h2, "
                               ".md-content h3')].map(h => +h.tagName[1])")
        assert levels[0] == 1 and all(b - a <= 1 for a, b in zip(levels, levels[1:])), levels
        watch.check()
    # every row opens the proof's own section of the full report
    targets = page.evaluate("() => [...document.querySelectorAll('table.ldr-drift__sum a')].map(a => a.href)")
    assert targets and all(t.split("#")[0] == project_site.url(DETAILS) for t in targets), targets
    page.locator("table.ldr-drift__sum a").nth(1).click()
    wanted = targets[1].split("#")[1]
    page.wait_for_url(f"**{DETAILS}#{wanted}")
    page.wait_for_selector(f"section.ldr-drift__proof#{wanted}")  # instant navigation swaps the content in
    section = page.locator(f"section.ldr-drift__proof#{wanted}")
    assert section.count() == 1 and section.locator(".ldr-drift__values").count() >= 1
    ids = set(page.evaluate("() => [...document.querySelectorAll('section.ldr-drift__proof')].map(s => s.id)"))
    assert {t.split("#")[1] for t in targets} <= ids


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_full_drift_report_reads_on_a_phone(project_site, open_page, scheme):
    for size in (PHONE, LAPTOP):
        page, watch = open_page(project_site.url(DETAILS), scheme=scheme, **size)
        width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"the page pans sideways at {size['width']} px: {width}"
        overflow = page.evaluate("""() => [...document.querySelectorAll('.ldr-drift__values')]
            .filter(t => t.getBoundingClientRect().right > t.parentElement.getBoundingClientRect().right + 1).length""")
        assert overflow == 0, f"{overflow} tables wider than the text at {size['width']} px"
        keys = page.evaluate(KEYS)
        assert len(keys) > 50
        torn = [k for k in keys if k[1] > k[2]]
        assert not torn, f"keys broken inside a name at {size['width']} px: {torn[:5]}"
        levels = page.evaluate("() => [...document.querySelectorAll('.md-content h1, .md-content h2, "
                               ".md-content h3, .md-content h4')].map(h => +h.tagName[1])")
        assert levels[0] == 1 and all(b - a <= 1 for a, b in zip(levels, levels[1:])), levels
        cells = page.evaluate("() => [...document.querySelectorAll('.ldr-drift__old, .ldr-drift__new')]"
                              ".map(c => c.textContent)")
        raw = [c for c in cells if re.search(r"\d\.\d{7,}", c)]
        assert not raw, raw[:5]  # no raw floats
        # a library is compared with itself, not with whatever sat at its position
        assert page.locator(".ldr-drift__key code", has_text="files[libtorch_cpu.so].bytes").count() == 1
        assert page.locator(".ldr-drift__key code", has_text=re.compile(r"files\.\d+\.")).count() == 0
        watch.check()
    # on a phone a row is a block: the key above, the two versions side by side, labelled
    page, _ = open_page(project_site.url(DETAILS), scheme=scheme, **PHONE)
    row = page.locator("tr.ldr-drift__value").first
    assert row.evaluate("r => getComputedStyle(r).display") == "grid"
    label = row.locator(".ldr-drift__old").evaluate("c => getComputedStyle(c, '::before').content")
    assert label == '"2.13.0: "', label
    sides = row.evaluate("r => ['.ldr-drift__old', '.ldr-drift__new']"
                         ".map(s => r.querySelector(s).getBoundingClientRect().top)")
    assert abs(sides[0] - sides[1]) < 2, sides  # the two versions on one line
