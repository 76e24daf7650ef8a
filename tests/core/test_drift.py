"""ldr drift: values, output and claims between two recorded torch versions; the page fences."""

import json
import re
from pathlib import Path as _Path
from types import SimpleNamespace

import pytest

from build_hooks.proofs.pin import pinned_torch as _pinned
from build_hooks.render import drift as render_drift
from build_hooks.upgrade import drift

from .recordkit import SCRIPT, record

PIN = _pinned(_Path(__file__).resolve().parents[2])


try:  # the real claims module once merged; until then a stand-in with its interface
    from build_hooks.upgrade.claims import evaluate, find_claims
except ImportError:
    CLAIM = re.compile(r"^```claim\n(?:proof: *(\S+)\n)(?:check: *(.+)\n)```", re.M)

    def find_claims(text):
        return [(text[: m.start()].count("\n") + 1, m.group(1), m.group(2)) for m in CLAIM.finditer(text)]

    def evaluate(expression, data):
        key, op, number = expression.split()
        value = data
        for part in key.split("."):
            value = value[part]
        return SimpleNamespace(holds=value < float(number) if op == "<" else value > float(number),
                               values={key: value})

API = (evaluate, find_claims)
HISTORY = "proofs/_results/_history"

PAGE = """\
# Toll

One add costs {{ toll.TOLL.small_us | .2f }} µs.

A big one costs {{ toll.TOLL.large_us | .0f }} µs, about {{ toll.TOLL.rounded | .1f }} ms.

```claim
proof: toll
check: TOLL.small_us > 1.3
```

```proof-output
proof: toll
grep: "toll"
```
"""


def setup(project, page=PAGE):
    project.proof("toll", 'PROOF = {"tolerance": {"TOLL.jitter_us": 0.05}}\n' + SCRIPT)
    project.proof("steady", SCRIPT)
    project.proof("gone", SCRIPT)
    old = project.root / HISTORY / "2.12.0"
    record(project, "toll", torch="2.12.0", folder=old,
           data={"TOLL": {"small_us": 1.2, "large_us": 1780.0, "jitter_us": 10.0, "op": "add",
                          "rounded": 2.01}},
           stdout=["toll 1.20 us", "the same line"])
    record(project, "toll", torch=PIN,
           data={"TOLL": {"small_us": 1.5, "large_us": 1790.0, "jitter_us": 10.4, "op": "add",
                          "rounded": 2.04, "new_key": 3}},
           stdout=["toll 1.50 us", "the same line", "<script>alert(1)</script>"])
    for torch, folder in (("2.12.0", old), (PIN, None)):
        record(project, "steady", torch=torch, folder=folder)
    record(project, "gone", torch="2.12.0", folder=old)
    spread = project.root / "proofs" / "_results" / "_noise" / PIN / "toll.cpu.json"
    spread.parent.mkdir(parents=True)
    spread.write_text(json.dumps({"format": 1, "proof": "toll", "device_class": "cpu", "torch": PIN, "runs": 3,
                                  "measured_at": "2026-11-01T00:00:00Z", "spread": {"TOLL.large_us": 0.02}}))
    project.page("index.md", page)


def test_drift_lists_exactly_what_changed_largest_first_with_noise_and_quotes(project):
    setup(project, PAGE + "\n```claim\nproof: toll\ncheck: TOLL.small_us < 1.3\n```\n")  # line 17
    report = drift.compute(project.root, api=API)
    assert (report.from_version, report.to_version) == ("2.12.0", PIN)  # the defaults
    assert [p.name for p in report.proofs] == ["toll"] and report.compared == 2
    assert report.only_from == ["gone.cpu"] and report.only_to == []
    toll = report.proofs[0]
    got = [(v.key, v.old, v.new, v.noise) for v in toll.values]
    assert got == [
        ("TOLL.new_key", None, 3, False),          # no ratio: listed first
        ("TOLL.small_us", 1.2, 1.5, False),         # x1.25
        ("TOLL.rounded", 2.01, 2.04, False),        # x1.015
        ("TOLL.jitter_us", 10.0, 10.4, True),       # within the declared 5 %
        ("TOLL.large_us", 1780.0, 1790.0, True),    # within the measured 2 % spread
    ]
    small = toll.values[1]
    assert small.ratio == pytest.approx(1.25)
    assert small.quoted_at == ["docs/index.md:3"]
    assert toll.values[2].quoted_at == ["docs/index.md:5"]
    assert toll.values[4].quoted_at == ["docs/index.md:5"]
    assert toll.removed == ["toll 1.20 us"]
    assert toll.excerpted_at == ["docs/index.md:12"]
    assert toll.added == ["toll 1.50 us", "<script>alert(1)</script>"]
    claims = {c.check: c.status for c in toll.claims}
    assert claims == {"TOLL.small_us > 1.3": "holds-now", "TOLL.small_us < 1.3": "broke"}
    assert {c.check: c.page_line for c in toll.claims}["TOLL.small_us < 1.3"] == "docs/index.md:17"
    text = render_drift.text_report(report)
    assert "TOLL.small_us: 1.2 -> 1.5 (x1.25)  quoted at docs/index.md:3" in text
    assert "TOLL.large_us: 1780 -> 1790 (x1.01, z 0.3)  (noise)" in text
    assert "claim broke: docs/index.md:17  TOLL.small_us < 1.3" in text
    assert "output excerpted at docs/index.md:12: re-read it" in text


def test_drift_json_shape_and_html_escapes(project):
    setup(project)
    broken = project.root / HISTORY / "2.12.0" / "steady.mps.json"
    broken.write_text("{half a record")
    out = project.ldr("drift", "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert body["format"] == 1 and body["from"] == "2.12.0" and body["to"] == PIN
    assert body["problems"] == [f"{broken}: JSONDecodeError: Expecting property name enclosed in "
                                "double quotes: line 1 column 2 (char 1) (skipped)"]
    (proof,) = body["proofs"]
    assert set(proof) >= {"name", "device_class", "values", "output", "claims"}
    assert proof["name"] == "toll" and proof["device_class"] == "cpu"
    for value in proof["values"]:
        assert set(value) >= {"key", "old", "new", "ratio", "noise", "quoted_at"}
    assert {v["key"]: v["noise"] for v in proof["values"]}["TOLL.large_us"] is True
    assert proof["output"]["removed"] == ["toll 1.20 us"]
    for claim in proof["claims"]:
        assert claim["status"] in ("broke", "holds-now", "still-holds", "still-broken")
        assert set(claim) >= {"page_line", "check", "old", "new"}

    explicit = json.loads(project.ldr("drift", "--from", "2.12.0", "--to", PIN, "--json").stdout)
    assert explicit == body
    page = project.root / "drift.html"
    made = project.ldr("drift", "--html", str(page))
    assert made.returncode == 0, made.stderr
    html = page.read_text()
    assert html.startswith("<!doctype html>") and "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "TOLL.small_us" in html

    unknown = project.ldr("drift", "--from", "2.1.0")
    assert unknown.returncode == 2 and "torch 2.1.0 is not recorded" in unknown.stderr
    assert f"2.12.0, {PIN}" in unknown.stderr


def test_drift_without_history_says_how_history_is_made(project):
    project.proof("toll", SCRIPT)
    record(project, "toll")
    out = project.ldr("drift")
    assert out.returncode == 2
    assert f"no torch version older than {PIN}" in out.stderr and "_history" in out.stderr


def test_drift_after_a_rollback_names_the_newer_version_to_compare(project):
    """Issue 21.5: the pin moved back; only a newer version is in the history."""
    project.proof("toll", SCRIPT)
    record(project, "toll")
    record(project, "toll", torch="2.99.0", folder=project.root / HISTORY / "2.99.0")
    out = project.ldr("drift")
    assert out.returncode == 2 and "after a rollback, compare with the newer one: `ldr drift --from 2.99.0`" \
        in out.stderr
    back = project.ldr("drift", "--from", "2.99.0")
    assert back.returncode == 0, back.stderr


def test_repeat_runs_measure_the_noise_that_drift_uses(project, tmp_path):
    counter = tmp_path / "count"
    project.proof("counter", f"""\
        import json, pathlib
        import torch  # noqa: F401  (noise is per torch version)
        p = pathlib.Path({str(counter)!r})
        n = int(p.read_text()) if p.exists() else 0
        p.write_text(str(n + 1))
        print("T=" + json.dumps({{"us": 1.0 + 0.1 * n, "fixed": 7}}))
        """)
    record(project, "counter", torch="2.12.0", data={"T": {"us": 1.1, "fixed": 6}})
    run = project.ldr("run", "--repeat", "3")
    assert run.returncode == 0, run.stderr
    assert counter.read_text() == "3"
    noise_file = project.root / "proofs" / "_results" / "_noise" / PIN / "counter.cpu.json"
    body = json.loads(noise_file.read_text())
    assert body["runs"] == 3 and body["spread"]["T.us"] == pytest.approx(0.2 / 1.1, rel=1e-4)
    assert body["spread"]["T.fixed"] == 0
    report = drift.compute(project.root, api=None)  # history 2.12.0 was kept by the first run
    values = {v.key: v.noise for v in report.proofs[0].values}
    assert values == {"T.us": True, "T.fixed": False}  # 1.2/1.1 is inside the spread; 7/6 is not


def test_drift_report_fence_and_corrections_note_on_a_built_page(project):
    setup(project, PAGE + f"""
```drift-report
from: 2.12.0
to: {PIN}
```

```corrections
- torch: {PIN}
  date: 2026-12-01
  note: "The toll <b>rose</b>; the prose says so."
```
""")
    (project.root / "docs" / "plain.md").write_text("# Plain\n\nNo corrections fence here.\n")
    built = project.build()
    assert built.returncode == 0, built.stderr
    html = project.html()
    report = html[html.index('<section class="ldr-drift"'):]
    assert f'data-from="2.12.0" data-to="{PIN}"' in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report and "<script>alert" not in html
    # the key wraps at its dots only; each proof is an h2 under the page's h1, no level skipped
    assert "<code>TOLL.<wbr>small_us</code>" in report
    assert '<h2 class="ldr-drift__name"><code>toll</code>' in report and "<h3" not in report
    assert (f'<td class="ldr-drift__old" data-label="2.12.0">1.2</td><td class="ldr-drift__new" '
            f'data-label="{PIN}">1.5</td><td class="ldr-drift__change">×1.25</td>') in report
    note = html[html.index('<aside class="ldr-corrections"'):]
    note = note[: note.index("</aside>")]
    # prose first: the versions and date, the author's note, then what changed in words, by section
    assert (f'<p><strong>torch 2.12.0 → {PIN}</strong> (<time datetime="2026-12-01">2026-12-01</time>). '
            '<span class="ldr-corrections__note">The toll &lt;b&gt;rose&lt;/b&gt;; the prose says so.</span></p>'
            ) in note
    said = note.split('<p class="ldr-corrections__summary">', 1)[1].split("</p>", 1)[0]
    assert said.startswith('1 value quoted on this page changed, in <a href="#toll">Toll</a>.')
    assert "TOLL" not in said and "<code>" not in said and "<del>" not in note  # no keys, checks or struck values
    # the detail one click away: each key with old -> new in the page's format, and each check
    detail = note.split('<details class="ldr-corrections__details">', 1)[1]
    assert detail.startswith("<summary>Every change, in detail</summary>")
    assert ('<li>In <a href="#toll">Toll</a>: <ul><li class="ldr-corrections__value"><code>toll.<wbr>TOLL.<wbr>'
            'small_us</code>: 1.20 → <strong>1.50</strong></li>') in detail
    assert 'id="toll"' in html  # the anchor the note links to is the heading\'s own
    assert "TOLL.<wbr>large_us" not in note  # moved within its measured noise
    assert "rounded" not in note  # 2.01 -> 2.04 reads "2.0" both times on the page
    assert said.endswith('1 claim that did not hold under torch 2.12.0 holds now, in <a href="#toll">Toll</a>.')
    assert "claim holds now: <code>TOLL.small_us &gt; 1.3</code>" in detail
    assert "ldr-corrections" not in project.html("plain")


def test_corrections_fence_rejects_bad_entries(md, project):
    project.proof("toll", SCRIPT)
    record(project, "toll")
    project.page("index.md", "x\n")
    from pymdownx.superfences import SuperFencesException as Refused

    with pytest.raises(Refused, match="docs/index.md:1: corrections entry 1 needs `torch: <version>`"):
        md("```corrections\n- note: hello\n```\n")
    with pytest.raises(Refused, match="unknown field"):
        md(f"```corrections\n- torch: {PIN}\n  notes: typo\n```\n")
    assert 'hidden' in md("```corrections\n```\n")  # no upgrade recorded yet: nothing to show


def test_sections_name_headings_as_the_toc_anchors_them():
    from build_hooks.pages.sections import section_at, sections

    text = ("---\ntitle: T\n---\n# Part `one`: the map\n\nintro {{ a.B }}\n\n"
            "## Ideas\n\n```python\n# not a heading\n```\n"
            "## Ideas\n\n### Own {#custom-id}\n\nbody\n")
    found = sections(text)
    assert [(s.line, s.title, s.anchor) for s in found] == [
        (4, "Part one: the map", "part-one-the-map"), (8, "Ideas", "ideas"), (13, "Ideas", "ideas_1"),
        (15, "Own", "custom-id")]
    assert section_at(found, 6).anchor == "part-one-the-map"
    assert section_at(found, 2) is None and section_at(found, 17).anchor == "custom-id"


def test_sections_agree_with_the_toc_extension_on_every_chapter():
    import re
    from pathlib import Path

    import markdown

    from build_hooks.pages.sections import sections

    root = Path(__file__).resolve().parents[2] / "docs"
    for page in ("part-00-the-map.md", "part-01-the-tensor.md"):
        text = (root / page).read_text(encoding="utf-8")
        body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
        html = markdown.markdown(body, extensions=["toc", "attr_list", "md_in_html", "pymdownx.superfences"])
        ids = re.findall(r'<h[1-6][^>]* id="([^"]+)"', html)
        assert [s.anchor for s in sections(text)] == ids, page


def test_one_wild_run_does_not_make_every_change_noise():
    """The range of three runs with one outlier spans x3; their MAD does not, so a 30 % move is
    still told apart from noise (the range model, before, called anything inside x2.96 noise)."""
    from build_hooks.store import noise
    from build_hooks.store.record import Record

    def run(us):
        return Record(proof="p", device_class="cpu", script_sha256="0" * 64, torch=PIN, torch_build=PIN,
                      python="3", os="L", machine="m", device="d", measured_at="2026-11-01T00:00:00Z",
                      wall_s=0.1, status="ok", returncode=0, signal=None, stdout=[], stderr=[],
                      data={"T": {"us": us}})

    runs = [run(1.0), run(1.02), run(3.0)]
    body = {"runs": 3, "spread": noise.spread(runs), "stats": noise.stats(runs)}
    assert body["spread"]["T.us"] == pytest.approx(2.0 / 1.02, rel=1e-5)
    assert body["stats"]["T.us"] == {"median": 1.02, "mad": pytest.approx(0.02)}
    scale = noise.relative_noise(body)
    assert scale["T.us"] == pytest.approx(1.4826 * 0.02 / 1.02)
    assert noise.within_noise(1.0, 1.3, "T.us", 0.0, scale) == (False, pytest.approx(6.38, abs=0.05))
    assert noise.within_noise(1.0, 1.05, "T.us", 0.0, scale)[0] is True
    legacy = noise.relative_noise({"runs": 3, "spread": body["spread"]})  # a format-1 file: the range
    assert noise.within_noise(1.0, 1.3, "T.us", 0.0, legacy)[0] is True
    assert noise.within_noise(1.0, 1.3, "T.us", 0.5, {})[0] is True   # the declared tolerance
    assert noise.within_noise(1.0, 1.3, "T.us", 0.0, {}) == (False, None)  # nothing measured


# -- issue 20: lists by name, the one number rule, a phone's width, reader prose ----------------
LIBS_OLD = {"LIBS": {"files": [{"name": "libtorch_cpu.so", "bytes": 434184800, "folder": "torch/lib"},
                               {"name": "libtorch_python.so", "bytes": 30494968, "folder": "torch/lib"},
                               {"name": "libshm.so", "bytes": 41336, "folder": "torch/lib"}]},
            "SWEEP": [{"us": 175.29407999999998}, {"us": 1.2122}]}
LIBS_NEW = {"LIBS": {"files": [{"name": "libcublasLt.so.13", "bytes": 541607888, "folder": "nvidia/cu13/lib"},
                               {"name": "libtorch_cuda.so", "bytes": 502842281, "folder": "torch/lib"},
                               {"name": "libtorch_cpu.so", "bytes": 446314593, "folder": "torch/lib"},
                               {"name": "libtorch_python.so", "bytes": 34353281, "folder": "torch/lib"},
                               {"name": "driver.so", "bytes": 6784424, "folder": "cuda/bindings"},
                               {"name": "driver.so", "bytes": 553840, "folder": "cuda/bindings/_internal"}]},
            "SWEEP": [{"us": 502.72}, {"us": 0.901986}]}


def libraries(project, page="# Libraries\n\nThe stub is {{ libs.LIBS.files.2.bytes }} bytes.\n"):
    project.proof("libs", SCRIPT)
    record(project, "libs", torch="2.12.0", folder=project.root / HISTORY / "2.12.0", data=LIBS_OLD)
    record(project, "libs", torch=PIN, data=LIBS_NEW)
    project.page("index.md", page)
    return drift.compute(project.root, api=None)


def test_a_list_of_named_items_is_compared_by_name_not_by_position(project):
    [libs] = libraries(project).proofs
    rows = {v.key: v for v in libs.values}
    # the same library wherever the list puts it: libtorch_cpu.so was item 0 and is item 2 now
    cpu = rows["LIBS.files[libtorch_cpu.so].bytes"]
    assert (cpu.old, cpu.new) == (434184800, 446314593) and cpu.ratio == pytest.approx(1.0279, rel=1e-3)
    assert rows["LIBS.files[libtorch_python.so].bytes"].new == 34353281
    # no comparison of two different libraries that happen to sit at one position
    assert not any(".files.0." in key or ".files.1." in key for key in rows)
    assert all(v.ratio is None or v.ratio < 2 for v in libs.values if key_is_file(v.key))
    # an item only one version has is one row holding the item: added, or removed
    added = rows["LIBS.files[libcublasLt.so.13]"]
    assert (added.old, added.new["bytes"], added.ratio) == (None, 541607888, None)
    assert rows["LIBS.files[libshm.so]"].new is None and rows["LIBS.files[libshm.so]"].old["bytes"] == 41336
    assert not any(key.startswith("LIBS.files[libcublasLt.so.13].") for key in rows)
    # two items of one name are told apart by the first other text field that differs
    assert {"LIBS.files[driver.so folder=cuda/bindings]", "LIBS.files[driver.so folder=cuda/bindings/_internal]"} \
        <= set(rows)
    # a page that quotes an item by position is still found, through that item's position
    assert rows["LIBS.files[libshm.so]"].quoted_at == ["docs/index.md:3"]
    # a list without names is still compared by position
    assert rows["SWEEP.0.us"].old == 175.29407999999998


def key_is_file(key: str) -> bool:
    return key.startswith("LIBS.files[") and key.endswith("].bytes")


def test_drift_values_follow_the_one_number_rule(project):
    html = render_drift.html_fragment(libraries(project))
    assert "175.29407999999998" not in html and "0.901986" not in html  # no raw floats
    assert 'data-label="2.12.0">175</td><td class="ldr-drift__new" data-label="' + PIN + '">503</td>' in html
    assert ">434,184,800</td>" in html  # an int keeps every digit, grouped
    assert "×1.03" in html and "x13" not in html
    assert ">bytes 541,607,888 · folder nvidia/cu13/lib</td>" in html  # an added item, by its fields
    assert render_drift.value_text(1.0000001, among=(1.0000001, 1.0)) == "1.0000001"  # told apart
    assert render_drift.value_text(True) == "true" and render_drift.value_text(None) == "—"


def test_values_only_one_side_has_are_folded_below_the_changed_ones(project):
    """The changed values and the ones a page quotes make the table; a value only one torch's
    record has and no page quotes (a library one build ships) is folded into a closed list."""
    html = render_drift.html_fragment(libraries(project))
    table, rest = html.split('<details class="ldr-drift__diff ldr-drift__onesided">', 1)
    folded = rest.split("</details>", 1)[0]

    def key(name):
        return "LIBS.<wbr>files[" + name.replace(".", ".<wbr>") + "]"

    assert key("libtorch_cpu.so") + ".<wbr>bytes" in table  # changed: shown
    assert key("libshm.so") in table  # only in the old record, but quoted on the page: shown
    assert key("libcublasLt.so.13") in folded and key("libcublasLt.so.13") not in table  # only new, unquoted
    summary = re.search(r"<summary>([^<]*)</summary>", rest).group(1)
    assert summary == f"4 values only in {PIN}, quoted on no page"
    assert '<table class="ldr-drift__values">' in folded


def test_the_drift_page_reads_on_a_phone_without_panning(project):
    """A real build: the report's proofs are h2 under the page's h1, its keys break at dots, and its
    stylesheet stacks the tables on a narrow screen (checked in a browser by tests/browser)."""
    libraries(project, "# Libraries\n\n```drift-report\nfrom: 2.12.0\n```\n")
    built = project.build()
    assert built.returncode == 0, built.stderr
    html = project.html()
    headings = re.findall(r"<h([1-6])", html.split('<div class="md-content"', 1)[1].split("</article>", 1)[0])
    assert headings[0] == "1" and "3" not in headings
    assert all(int(b) - int(a) <= 1 for a, b in zip(headings, headings[1:])), headings
    assert "LIBS.<wbr>files[libtorch_cpu.<wbr>so].<wbr>bytes" in html
    css = (_Path(__file__).resolve().parents[2] / "build_hooks" / "assets" / "ldr-proofs.css").read_text()
    phone = css.split("@media screen and (max-width: 44.984375em) {\n  .md-typeset .ldr-drift__values", 1)[1]
    assert "display: grid" in phone.split("}\n}", 1)[0]


def test_a_claim_the_old_record_could_not_check_is_new_not_fixed(project):
    project.proof("libs", SCRIPT)
    record(project, "libs", torch="2.12.0", folder=project.root / HISTORY / "2.12.0", data={"A": {"x": 1}})
    record(project, "libs", torch=PIN, data={"A": {"x": 5, "y": 2}})
    page = ("# Top\n\n## First\n\nIt is {{ libs.A.x }}.\n\n```claim\nproof: libs\ncheck: A.x > 2\n```\n\n"
            "## Second\n\n```claim\nproof: libs\ncheck: A.y > 1\nsay: Y is <b>more</b> than one.\n```\n\n"
            "```corrections\n```\n")
    project.page("index.md", page)
    from build_hooks.render.corrections import render
    from build_hooks.upgrade.corrections import upgrades

    [upgrade] = upgrades(project.root, page, {})
    assert [(w.title, status) for w, status, *_ in upgrade.claims] == [("First", "holds now"), ("Second", "new")]
    # the detail names a claim by the author's statement (escaped), by its check where it has none
    detail = render([upgrade]).split('<ul class="ldr-corrections__changes">', 1)[1]
    assert "claim holds now: <code>A.x &gt; 2</code></li>" in detail
    assert ("claim is checked for the first time, and holds: Y is &lt;b&gt;more&lt;/b&gt; than one.</li>"
            in detail) and "A.y" not in detail
    said = render([upgrade]).split('<p class="ldr-corrections__summary">', 1)[1].split("</p>", 1)[0]
    assert said == ('1 value quoted on this page changed, in <a href="#first">First</a>. '
                    '1 claim that did not hold under torch 2.12.0 holds now, in <a href="#first">First</a>. '
                    '1 claim is checked for the first time, in <a href="#second">Second</a>: it reads values the '
                    'torch 2.12.0 records did not have.')


def test_a_summary_report_links_each_proof_to_its_section_of_the_full_report(project):
    """```drift-report with details: is one row per proof on a real built page; every row's link
    opens the proof's section of the full report on the page it names (its id exists there)."""
    setup(project)
    (project.root / "docs" / "drift").mkdir()
    (project.root / "docs" / "drift" / "summary.md").write_text(
        f"# Upgrade\n\n```drift-report\nfrom: 2.12.0\nto: {PIN}\ndetails: drift/full/all.md\n```\n")
    (project.root / "docs" / "drift" / "full").mkdir()
    (project.root / "docs" / "drift" / "full" / "all.md").write_text(
        f"# Every value\n\n```drift-report\nfrom: 2.12.0\nto: {PIN}\n```\n")
    built = project.build()
    assert built.returncode == 0, built.stderr
    summary, full = project.html("drift/summary"), project.html("drift/full/all")
    section = summary[summary.index('<section class="ldr-drift ldr-drift--summary"'):]
    section = section[: section.index("</section>")]
    assert "<table class=\"ldr-drift__sum\">" in section and "ldr-drift__values" not in section
    rows = re.findall(r'<tr><td><a href="([^"#]*)#([^"]+)"><code>(\w+)</code></a>', section)
    assert [name for _, _, name in rows] == ["toll", "gone"]  # "steady" did not change
    for href, anchor, _ in rows:
        assert href == "../../drift/full/all/" and f'id="{anchor}"' in full
    # the counts, the largest numeric move and what the output and claims did, in words
    row = section[section.index("<tr><td>"):]
    assert '<td data-label="values">2 moved, 1 new (+2 within noise)</td>' in row
    assert '<td data-label="largest"><code>TOLL.small_us</code> ×1.25</td>' in row
    assert '<td data-label="printed">1 line removed, 2 lines added</td>' in row
    assert '<td data-label="claims">1 holds now</td>' in row
    assert "&lt;script&gt;" not in section and "<script>" not in section  # output lines stay on the full page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in full


@pytest.mark.parametrize("value, said", [
    ("drift/missing.md", "names no page of the site"),
    ("../outside.md", "is not a page"),
    ("/etc/passwd", "is not a page"),
    ("drift/full", "is not a page"),
    ("[1, 2]", "is not a page"),
])
def test_a_summary_report_names_a_page_of_the_site(md, project, value, said):
    setup(project)
    from pymdownx.superfences import SuperFencesException as Refused

    with pytest.raises(Refused, match=re.escape(said) + ".*fix: "):
        md(f"```drift-report\nfrom: 2.12.0\nto: {PIN}\ndetails: {value}\n```\n")


def test_a_claim_count_agrees_with_its_verb():
    from types import SimpleNamespace

    from build_hooks.render.drift import claims_text

    def claims(*states):
        return [SimpleNamespace(status=s) for s in states]

    assert claims_text(claims("holds-now", "still-holds")) == "1 holds now · 1 still holds"
    assert claims_text(claims("holds-now", "holds-now", "still-holds", "still-holds", "broke")) == \
        "1 broke · 2 hold now · 2 still hold"
    assert claims_text([]) == "—"
