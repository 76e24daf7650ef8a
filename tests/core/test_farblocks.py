"""The stand-in heights of the runs of far blocks (build_hooks/site/farblocks.py)."""

from __future__ import annotations

from build_hooks.site import defer
from build_hooks.site.farblocks import CLASS, PHONE, WIDE, Measure, height, measure, rounded, stand_in


def test_what_a_reader_sees_is_counted_and_nothing_else():
    html = ('<p>four five</p><script type="application/json">["a long record, never shown"]</script>'
            '<style>.x { color: red }</style><template><p>never drawn</p></template>'
            '<details class="ldr-claim"><summary>said</summary><p>the check, hidden until opened</p></details>'
            '<details open><summary>open</summary><p>shown</p></details>')
    m = measure(html)
    # "four five" (10 with its space), "said" (5), "open" and "shown" (11)
    assert m.chars == len("four five ") + len("said ") + len("open shown ")
    assert m.code == 0 and m.art == ()
    # the first paragraph, the open details and its paragraph (a closed one is its summary's line,
    # as the factors were fitted; what it hides is not counted)
    assert m.blocks == 3


def test_nested_closed_details_keep_only_the_outer_summary():
    html = "<details><summary>out</summary><details><summary>in</summary>x</details>y</details><p>z</p>"
    assert measure(html).chars == len("out ") + len("z ")


def test_code_counts_by_lines_and_drawings_by_their_size():
    html = ('<figure><pre><code><span>a = 1</span>\n<span>b = 2</span>\n<span>c = 3</span>\n</code></pre></figure>'
            '<svg class="ldr-drawing" viewBox="0 0 1000 500" width="1000" height="500"><text>label</text></svg>'
            '<img class="ldr-drawing-file" src="f.svg" alt="" width="200" height="100">')
    m = measure(html)
    assert m.code == 3 and m.chars == 0
    assert m.art == ((1000.0, 500.0), (200.0, 100.0))
    # a drawing wider than the column is fitted to it; a narrower one keeps its size
    assert height(m, PHONE) == round(PHONE[1] * 3 + PHONE[2] * 1 + PHONE[3] * 0.5 + 100)
    assert height(m, WIDE) == round(WIDE[1] * 3 + WIDE[2] * 1 + WIDE[3] * 0.5 + 100)


def test_the_style_names_both_stand_ins_in_pixels():
    m = Measure(chars=2000, code=0, blocks=4, art=())
    style = stand_in("<p>" + "word " * 400 + "</p>" * 1 + "<p></p>" * 3)
    assert style == f"--ldr-far-p:{rounded(height(m, PHONE))};--ldr-far-w:{rounded(height(m, WIDE))}"
    assert [rounded(px) for px in (0, 99, 100, 1234, 1250, 98765)] == [0, 99, 100, 1200, 1200, 99000]
    assert height(m, PHONE) > height(m, WIDE)


def test_search_reads_a_run_as_prose():
    """site/defer.py spells the runs' class among the prose it leaves as markup for the search
    plugin: a run only holds the author's blocks."""
    assert CLASS in defer.PROSE
