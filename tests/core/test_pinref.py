"""The pin in prose: {{ torch.version }}, pytorch: links, and the hand-typed version check."""

from pathlib import Path as _Path

import pytest
from pymdownx.superfences import SuperFencesException

from build_hooks.core.errors import DirectiveError
from build_hooks.hosts.markdown.pinref import find_hand_typed, source_url
from build_hooks.proofs.pin import pinned_torch
from build_hooks.proofs.pin import pinned_torch as _pinned

PIN = _pinned(_Path(__file__).resolve().parents[2])



@pytest.fixture
def pin(project):
    return pinned_torch(project.root)


def errors(md, text, page="chapter.md"):
    with pytest.raises((DirectiveError, SuperFencesException)) as info:
        md(text, page=page)
    return str(info.value)


def test_values_follow_the_pin(project, md, pin):
    html = md("Checked against torch {{ torch.version }}, tag {{torch.tag}}.\n")
    assert html == f"<p>Checked against torch {pin}, tag v{pin}.</p>"
    # The pin is the only source: change it and the page follows.
    pyproject = project.root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(f"torch=={pin}", "torch==2.99.1"))
    assert md("torch {{ torch.version }} at `{{ torch.tag }}`\n") == "<p>torch 2.99.1 at <code>v2.99.1</code></p>"


def test_values_work_in_code_blocks_and_headings(md):
    html = md("# Under {{ torch.version }}\n\n```text\npip install torch=={{ torch.version }}\n```\n")
    assert f"<h1>Under {PIN}</h1>" in html and f"pip install torch=={PIN}" in html


def test_unknown_value_names_page_line_and_the_known_ones(md):
    message = errors(md, "One.\n\nTwo {{ torch.release }}.\n")
    assert message == ("docs/chapter.md:3: unknown pin value '{{ torch.release }}'; the values are "
                       "{{ torch.version }}, {{ torch.tag }}")


def test_links_blob_for_files_tree_for_folders(md):
    html = md("[yaml](pytorch:aten/src/ATen/native/native_functions.yaml), [c10](pytorch:c10/core/), "
              "[line](pytorch:c10/core/DispatchKey.h#L40-L52), [root](pytorch:)\n\n"
              "[ref]\n\n[ref]: pytorch:torchgen/\n")
    base = "https://github.com/pytorch/pytorch"
    assert f'<a href="{base}/blob/v{PIN}/aten/src/ATen/native/native_functions.yaml">yaml</a>' in html
    assert f'<a href="{base}/tree/v{PIN}/c10/core">c10</a>' in html
    assert f'<a href="{base}/blob/v{PIN}/c10/core/DispatchKey.h#L40-L52">line</a>' in html
    assert f'<a href="{base}/tree/v{PIN}">root</a>' in html
    assert f'<a href="{base}/tree/v{PIN}/torchgen">ref</a>' in html
    assert "pytorch:" not in html


def test_bad_link_path_names_page_and_line(md):
    message = errors(md, "Intro.\n\nSee [up](pytorch:../secrets).\n")
    assert message.startswith("docs/chapter.md:3: pytorch:../secrets is not a path in the PyTorch repository")


MM = ".".join(PIN.split(".")[:2])  # the pin's major.minor
NEXT = f"{PIN.split('.')[0]}.{int(PIN.split('.')[1]) + 1}"


@pytest.mark.parametrize("typed, fix", [
    (f"checked against torch {PIN} today", "write torch {{ torch.version }}"),
    (f"pip install torch=={MM}", "write torch=={{ torch.version }}"),
    (f"new in PyTorch {MM}, and", "write PyTorch {{ torch.version }}"),
    (f"a future torch {NEXT} too", "write torch {{ torch.version }}"),
    (f"source at the `v{PIN}` tag", "write {{ torch.tag }}"),
    ("[f](https://github.com/pytorch/pytorch/tree/v2.13.0/torch/nn/modules/linear.py)",
     "write pytorch:torch/nn/modules/linear.py"),
    ("`https://github.com/pytorch/pytorch/blob/v2.1.0/c10/core/`", "write pytorch:c10/core/"),
])
def test_hand_typed_versions_fail_with_page_line_and_fix(md, typed, fix):
    message = errors(md, f"# Part\n\nSome text.\n{typed}\n")
    assert message.startswith("docs/chapter.md:4: ") and fix in message, message


def test_history_other_software_and_code_blocks_pass(md):
    html = md("The compiler arrived with PyTorch 2.0; Python 3.11 and CUDA 12.4 are fine, as is\n"
              "`torch.randn(64, 128)` and NCCL v2.21.5.\n\n"
              "```text\ntorch 2.13.0+cpu\nhttps://github.com/pytorch/pytorch/blob/{{ torch.tag }}/setup.py\n```\n\n"
              "~~~python\nassert torch.__version__ == '2.13.0'  # torch==2.13.0\n~~~\n")
    assert "PyTorch 2.0" in html and "torch 2.13.0+cpu" in html


def test_a_tag_link_in_a_code_block_is_an_error_too(md):
    message = errors(md, "Text.\n\n```sh\ncurl -O https://github.com/pytorch/pytorch/blob/v2.13.0/setup.py\n```\n")
    assert message.startswith("docs/chapter.md:4: https://github.com/pytorch/pytorch/blob/v2.13.0/setup.py is a link")
    assert "write pytorch:setup.py (end it with / for a folder), or {{ torch.tag }} in code" in message


def test_directive_fence_bodies_are_prose(md):
    message = errors(md, f"Text.\n\n```figure\nsrc: a.excalidraw\ncaption: Measured on torch {PIN}.\n```\n")
    assert message.startswith(f"docs/chapter.md:5: 'torch {PIN}' is a torch version typed by hand")


def test_find_hand_typed_reports_every_line(pin):
    lines = ["torch 2.13.0 and v2.13.0", "```", "torch 2.13.0", "```", "PyTorch 2.13 again, as is PyTorch",
             "2.14.1 wrapped onto the next line", "", "torch", "", "2.13 in another paragraph"]
    found = find_hand_typed(lines, "2.13.0")  # a pure function: the pin is an argument
    assert [number for number, _ in found] == [1, 1, 5, 5]
    assert "'PyTorch 2.14.1' is a torch version typed by hand; write PyTorch {{ torch.version }}" in found[3][1]


def test_source_url_is_pure():
    assert source_url("2.14.0+cu124", "setup.py") == "https://github.com/pytorch/pytorch/blob/v2.14.0/setup.py"


def rule(project, value: str) -> None:
    """The plugin's typed_versions option in the project's mkdocs.yml."""
    config = project.root / "mkdocs.yml"
    text = config.read_text().replace("  - ldr:\n      typed_versions: error\n", "  - ldr\n")
    text = text.replace("  - ldr:\n      typed_versions: warn\n", "  - ldr\n")
    config.write_text(text.replace("  - ldr\n", f"  - ldr:\n      typed_versions: {value}\n") if value else text)


def test_strict_build_fails_on_a_hand_typed_version(project):
    rule(project, "error")
    project.page("index.md", "# Home\n\nRead [the yaml](pytorch:tools/autograd/derivatives.yaml).\n")
    assert project.build().returncode == 0
    assert (f'href="https://github.com/pytorch/pytorch/blob/v{PIN}/tools/autograd/derivatives.yaml"'
            in project.html())
    project.page("index.md", f"# Home\n\nAll of it was checked against torch {PIN}.\n")
    result = project.build()
    assert result.returncode == 1
    assert (f"docs/index.md:3: 'torch {PIN}' is a torch version typed by hand; write "
            "torch {{ torch.version }}") in result.stderr


def test_the_rule_is_the_series_own(project):
    """Without the option a site may type versions (the rule is this series'); warn says so and
    fails only a strict build; error fails any build."""
    project.page("index.md", f"# Home\n\nAll of it was checked against torch {PIN}.\n")
    rule(project, "")
    assert project.build().returncode == 0
    rule(project, "warn")
    warned = project.build(strict=False)
    assert warned.returncode == 0 and f"'torch {PIN}' is a torch version typed by hand" in warned.stderr
    assert project.build().returncode == 1
    rule(project, "error")
    assert project.build(strict=False).returncode == 1
    rule(project, "loud")
    wrong = project.build()
    assert wrong.returncode == 1 and "typed_versions" in wrong.stderr


def test_history_fences_may_name_later_versions(md):
    """A corrections note or a drift report names versions on purpose (after a rollback, later
    ones than the pin): their bodies are history, not prose the pin rule checks."""
    for fence in ("corrections", "drift-report"):
        found = errors(md, f"# Notes\n\n```{fence}\nfrom: 2.99.0\nnote: went back from torch 2.99.0\n```\n")
        assert "typed by hand" not in found
    assert "typed by hand" in errors(md, "# Notes\n\n```claim\nsay: as torch 2.99.0 does\n```\n")
