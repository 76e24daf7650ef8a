"""The ``source`` fence: quotes of the installed torch's own files, found by pattern.

The real wheel's files are quoted where the pin equals the installed torch; stand-in ``torch``
and ``torchgen`` packages on PYTHONPATH (a few files each) play an upgraded torch whose source
moved, so the failure paths run for real in a build without a second wheel.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.pin import pinned_torch
from build_hooks.proofs.sources import block_end, find, installed_torch, quote, repo_path

PIN = pinned_torch(Path(__file__).resolve().parents[2])

PAGE = """\
# Quotes

The backward of `mm` is two more matrix products:

```source
file: tools/autograd/derivatives.yaml
from: "- name: mm(Tensor self"
say: The mm entry of derivatives.yaml.
```

Its dispatch keys are declared in one enum:

```source
file: torch/include/c10/core/DispatchKey.h
from: "enum class DispatchKey : uint16_t"
to: "Undefined = 0,"
```
"""


def build(project, env_extra: dict | None = None, strict: bool = True):
    args = [sys.executable, "-m", "mkdocs", "build", "-d", "site"] + (["--strict"] if strict else [])
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", LDR_RUN="false", **(env_extra or {}))
    return subprocess.run(args, cwd=project.root, capture_output=True, text=True, env=env, timeout=300)


def set_pin(project, version: str) -> None:
    path = project.root / "pyproject.toml"
    path.write_text(re.sub(r'"torch==[^"]+"', f'"torch=={version}"', path.read_text()))


def standin(tmp_path: Path, version: str, derivatives: str) -> Path:
    """A folder holding stand-in torch and torchgen packages with a few source files."""
    root = tmp_path / f"standin-{version}"
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(f"__version__ = {version!r}\n")
    (root / "torch" / "version.py").write_text(f"__version__ = '{version}+cpu'\n")
    header = root / "torch" / "include" / "c10" / "core" / "DispatchKey.h"
    header.parent.mkdir(parents=True)
    header.write_text("namespace c10 {\nenum class DispatchKey : uint16_t {\n  Undefined = 0,\n  CPU,\n};\n}\n")
    yaml_file = root / "torchgen" / "packaged" / "autograd" / "derivatives.yaml"
    yaml_file.parent.mkdir(parents=True)
    (root / "torchgen" / "__init__.py").write_text("")
    yaml_file.write_text(textwrap.dedent(derivatives))
    return root


def test_a_quote_of_the_real_wheel_shows_its_lines_path_and_link(project):
    project.page("index.md", PAGE)
    result = build(project)
    assert result.returncode == 0, result.stderr
    html = project.html()
    found = quote("tools/autograd/derivatives.yaml", "- name: mm(Tensor self")
    assert found.torch == PIN and found.repo == "tools/autograd/derivatives.yaml"
    assert found.lines[0].startswith("- name: mm(") and all(line.startswith("  ") for line in found.lines[1:])
    url = f"https://github.com/pytorch/pytorch/blob/v{PIN}/tools/autograd/derivatives.yaml#L{found.first}-L{found.last}"
    assert f'href="{url}"' in html
    assert "<code>tools/autograd/derivatives.yaml</code>" in html
    assert "mm_mat1_backward" in html and "The mm entry of derivatives.yaml." in html
    # the stylesheet numbers the lines from the first: a counter the <code> starts one before it
    assert f'<code style="counter-reset: ldr-line {found.first - 1}">' in html
    assert html.count('<span class="ldr-quote__l">') >= len(found.lines)
    assert "<code>c10/core/DispatchKey.h</code>" in html


def test_a_quote_whose_pattern_is_gone_fails_a_strict_build_naming_page_line_and_file(project, tmp_path):
    project.page("index.md", PAGE)
    moved = standin(tmp_path, "2.99.0", """\
        - name: mm_renamed(Tensor self, Tensor mat2) -> Tensor
          self: grad
        """)
    set_pin(project, "2.99.0")
    result = build(project, {"PYTHONPATH": str(moved)})
    assert result.returncode != 0
    assert re.search(r"docs/index\.md:5\b", result.stderr), result.stderr
    assert "torchgen/packaged/autograd/derivatives.yaml" in result.stderr
    assert "- name: mm(Tensor self" in result.stderr
    # the same stand-in, with the entry present, builds: the failure was the pattern alone
    kept = standin(tmp_path / "b", "2.99.0", """\
        - name: mm(Tensor self, Tensor mat2) -> Tensor
          self: grad.mm(mat2.t())
        """)
    again = build(project, {"PYTHONPATH": str(kept)})
    assert again.returncode == 0, again.stderr
    html = project.html()
    assert "grad.mm(mat2.t())" in html and "/blob/v2.99.0/tools/autograd/derivatives.yaml#L1-L2" in html


def test_a_quote_read_from_a_torch_other_than_the_pin_fails(project, tmp_path):
    project.page("index.md", PAGE)
    other = standin(tmp_path, "2.98.0", "- name: mm(Tensor self) -> Tensor\n  self: grad\n")
    result = build(project, {"PYTHONPATH": str(other)})
    assert result.returncode != 0
    assert "installed torch 2.98.0" in result.stderr and f"the pin is {PIN}" in result.stderr


def test_bad_options_name_the_fix(project):
    project.page("index.md", "# Q\n\n```source\nfile: tools/autograd/derivatives.yaml\n```\n")
    result = build(project)
    assert result.returncode != 0 and "docs/index.md:3" in result.stderr and "needs `from:`" in result.stderr
    project.page("index.md", "# Q\n\n```source\nfile: ../../etc/passwd\nfrom: root\n```\n")
    result = build(project)
    assert result.returncode != 0 and "give a path inside the torch wheel" in result.stderr
    project.page("index.md", "# Q\n\n```source\nfile: torch/include/ATen/ops/mm.h\nfrom: inline at::Tensor mm(\n```\n")
    result = build(project)
    assert result.returncode != 0 and "make `from:` longer" in result.stderr


def test_repository_paths_of_installed_files():
    assert (repo_path("torchgen/packaged/ATen/native/native_functions.yaml")
            == "aten/src/ATen/native/native_functions.yaml")
    assert repo_path("torchgen/packaged/autograd/derivatives.yaml") == "tools/autograd/derivatives.yaml"
    assert repo_path("torch/include/c10/core/DispatchKey.h") == "c10/core/DispatchKey.h"
    assert repo_path("torch/include/ATen/core/Tensor.h") == "aten/src/ATen/core/Tensor.h"
    assert repo_path("torch/include/torch/csrc/autograd/function.h") == "torch/csrc/autograd/function.h"
    assert repo_path("torch/autograd/graph.py") == "torch/autograd/graph.py"
    assert repo_path("torch/include/torch/headeronly/core/ScalarType.h") == "torch/headeronly/core/ScalarType.h"
    assert repo_path("torch/include/torch/library.h") == "torch/library.h"
    assert (repo_path("torch/include/torch/csrc/api/include/torch/nn/module.h")
            == "torch/csrc/api/include/torch/nn/module.h")
    assert repo_path("torch/include/ATen/ops/mm.h") is None
    assert repo_path("torch/include/torch/csrc/autograd/generated/Functions.h") is None
    assert repo_path("torch/version.py") is None


def test_a_generated_file_says_it_has_no_repository_file(project):
    project.page("index.md", "# Q\n\n```source\nfile: torch/include/ATen/ops/mm.h\nfrom: inline at::Tensor mm(\n"
                             "nth: 1\nto: \"}\"\n```\n")
    result = build(project)
    assert result.returncode == 0, result.stderr
    html = project.html()
    assert "the repository has no such file" in html and "github.com" not in html.split("ldr-quote")[1][:400]


@pytest.mark.parametrize("text,start,end", [
    ("- name: a(x)\n  x: 1\n  y: 2\n\n- name: b(x)\n  x: 3\n", 0, 2),
    ("def f():\n    a = 1\n\n    return a\n\ndef g():\n    pass\n", 0, 3),
    ("enum class K {\n  A,\n  B,\n};\nint x;\n", 0, 3),
    ("single line\nnext line\n", 0, 0),
])
def test_a_block_runs_to_its_last_indented_line(text, start, end):
    assert block_end(tuple(text.split("\n")), start) == end


def test_find_refuses_ambiguous_and_missing_text():
    lines = ("a x", "b x", "c")
    with pytest.raises(DirectiveError, match="2 lines of f contain 'x'"):
        find(lines, "x", where="f")
    assert find(lines, "x", nth=2, where="f") == (1, 1)
    with pytest.raises(DirectiveError, match="any more"):
        find(lines, "zzz", where="f")
    with pytest.raises(DirectiveError, match="update `to:`"):
        find(lines, "c", "nothing", where="f")


def test_installed_torch_reads_the_version_without_importing_it():
    assert installed_torch() == PIN
    code = ("import sys; from build_hooks.proofs.sources import installed_torch, quote; "
            "print(installed_torch(), "
            "quote('c10/core/DispatchKey.h', 'enum class DispatchKey : uint16_t', 'Undefined = 0,').first, "
            "'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == PIN and out[2] == "False"


CLAIM_PAGE = """\
# Q

```source
file: tools/autograd/derivatives.yaml
from: "- name: mm(Tensor self"
id: mm-backward
```

```claim
quote: mm-backward
check: '"mm_mat1_backward" in QUOTE.text and len(QUOTE.lines) >= 3'
say: The backward of mm calls mm_mat1_backward.
```
"""


def test_a_claim_on_a_quote_holds_and_breaks_with_the_source(project, tmp_path):
    project.page("index.md", CLAIM_PAGE)
    result = build(project)
    assert result.returncode == 0, result.stderr
    assert 'data-quote="mm-backward" data-holds="true"' in project.html()
    changed = standin(tmp_path, "2.99.0", """\
        - name: mm(Tensor self, Tensor mat2) -> Tensor
          self: grad.mm(mat2.t())
          mat2: self.t().mm(grad)
        """)
    set_pin(project, "2.99.0")
    result = build(project, {"PYTHONPATH": str(changed)})
    assert result.returncode != 0
    assert "claim does not hold" in result.stderr and "quote mm-backward" in result.stderr
    assert re.search(r"docs/index\.md:9\b", result.stderr), result.stderr
    project.page("index.md", CLAIM_PAGE.replace("id: mm-backward\n", ""))
    result = build(project)
    assert result.returncode != 0 and "no source fence has `id: mm-backward`" in result.stderr


def test_a_claim_that_cannot_fail_is_flagged_on_a_strict_build(project):
    project.page("index.md", CLAIM_PAGE.replace(
        "check: '\"mm_mat1_backward\" in QUOTE.text and len(QUOTE.lines) >= 3'",
        "check: 'len(QUOTE.lines) >= 0'"))
    result = build(project)
    assert result.returncode != 0
    assert "claim cannot fail: len(QUOTE.lines) >= 0" in result.stderr and "docs/index.md:9" in result.stderr


def ldr(project, *args, env_extra: dict | None = None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "build_hooks.hosts.cli.main", *args], cwd=project.root,
                          capture_output=True, text=True, env=env, timeout=300)


def test_drift_between_two_torches_reports_a_changed_quote(project, tmp_path):
    project.page("index.md", PAGE)
    old = standin(tmp_path / "old", "2.98.0", "- name: mm(Tensor self, Tensor mat2) -> Tensor\n"
                                              "  self: grad.mm(mat2.t())\n")
    new = standin(tmp_path / "new", "2.99.0",
                  "# a comment line moves the entry down\n"
                  "- name: mm(Tensor self, Tensor mat2) -> Tensor\n  self: mm_mat1_backward(grad, mat2)\n")
    set_pin(project, "2.98.0")
    first = build(project, {"PYTHONPATH": str(old)})
    assert first.returncode == 0, first.stderr
    kept = project.root / "proofs" / "_results" / "_quotes" / "2.98.0.json"
    assert "grad.mm(mat2.t())" in kept.read_text()
    before = kept.read_bytes()
    assert build(project, {"PYTHONPATH": str(old)}).returncode == 0
    assert kept.read_bytes() == before  # a warm build rewrites nothing
    project.page("index.md", "# A new first line\n\n" + PAGE)
    assert build(project, {"PYTHONPATH": str(old)}).returncode == 0
    assert kept.read_bytes() == before  # nor does an edit of the prose around the quotes
    # Upgrade day: the new torch installed, the pin moved, no page built yet: drift reads it live.
    set_pin(project, "2.99.0")
    live = ldr(project, "drift", "--from", "2.98.0", "--to", "2.99.0", env_extra={"PYTHONPATH": str(new)})
    assert live.returncode == 0, live.stderr
    assert "quote changed: tools/autograd/derivatives.yaml" in live.stdout and "at docs/index.md" in live.stdout
    assert "- grad.mm(mat2.t())" in live.stdout.replace("    - ", "- ").replace("  self: ", "")
    assert "quote moved: c10/core/DispatchKey.h" not in live.stdout  # unchanged quotes are not listed
    # After a build under the new torch, drift compares the two kept files.
    assert build(project, {"PYTHONPATH": str(new)}).returncode == 0
    kept_json = ldr(project, "drift", "--from", "2.98.0", "--to", "2.99.0", "--json",
                    env_extra={"PYTHONPATH": str(new)})
    assert kept_json.returncode == 0, kept_json.stderr
    quotes = {q["key"].split(" | ")[0]: q for q in json.loads(kept_json.stdout)["quotes"]}
    assert quotes["tools/autograd/derivatives.yaml"]["status"] == "changed"
    assert quotes["tools/autograd/derivatives.yaml"]["new"]["first"] == 2
    assert "torch/include/c10/core/DispatchKey.h" not in quotes


def test_a_corrections_note_names_a_quote_whose_lines_changed(project, tmp_path):
    from tests.core.recordkit import record

    page = PAGE.replace("# Quotes\n", "# Quotes\n\n```corrections\n- torch: 2.99.0\n  note: \"Re-read.\"\n```\n\n"
                                      "## Backward\n")
    project.proof("toll", 'import json\nprint("TOLL=" + json.dumps({"small_us": 1.0}))\n')
    project.page("index.md", page)
    old = standin(tmp_path / "old", "2.98.0", "- name: mm(Tensor self, Tensor mat2) -> Tensor\n"
                                              "  self: grad.mm(mat2.t())\n")
    new = standin(tmp_path / "new", "2.99.0", "- name: mm(Tensor self, Tensor mat2) -> Tensor\n"
                                              "  self: mm_mat1_backward(grad, mat2)\n")
    record(project, "toll", torch="2.98.0")
    set_pin(project, "2.98.0")
    assert build(project, {"PYTHONPATH": str(old)}).returncode == 0
    record(project, "toll", torch="2.98.0", folder=project.root / "proofs" / "_results" / "_history" / "2.98.0")
    record(project, "toll", torch="2.99.0")
    set_pin(project, "2.99.0")
    result = build(project, {"PYTHONPATH": str(new)})
    assert result.returncode == 0, result.stderr
    note = project.html().split('class="ldr-corrections"', 1)[1].split("</aside>", 1)[0]
    assert ('<p class="ldr-corrections__summary">The quoted lines of 1 source file changed, in '
            '<a href="#backward">Backward</a>.</p>') in note
    assert "the quoted lines of <code>tools/<wbr>autograd/<wbr>derivatives.yaml</code> changed" in note
    assert 'href="#backward"' in note  # at the section of its fence
    assert "DispatchKey.h" not in note  # its lines did not change


def test_a_quote_carries_one_element_per_line_and_per_coloured_token():
    # whitespace and names are drawn in the code's own colour: they need no element of their own
    from html import unescape

    from build_hooks.proofs.sources import Quote
    from build_hooks.render.source import render

    lines = ("      : data_ptr_(std::move(data_ptr)),", "        resizable_(resizable) {", "  // a comment")
    html = render(Quote("torch/include/c10/core/StorageImpl.h", "c10/core/StorageImpl.h", 66, 68, lines, "2.0.0"))
    code = html.split('<pre class="ldr-quote__code"><code style="counter-reset: ldr-line 65">', 1)[1]
    code = code.split("</code>", 1)[0]
    for plain in ("w", "n", "p"):  # whitespace, names, punctuation
        assert f'<span class="{plain}">' not in code
    assert "<pre><span></span>" not in html
    text = unescape(re.sub(r"<[^>]+>", "", code))
    assert text == "\n".join(lines) + "\n"  # every character of the source, in order
    assert code.count('<span class="ldr-quote__l">') == 3  # numbered 66, 67, 68 by the stylesheet
    elements = len(re.findall(r"<span\b", code))
    # a line each, and the coloured tokens: the operators ":" and "::", the comment
    assert elements == 3 + 2 + 1, code
