"""Where the torch pin comes from: the torch option, then pyproject.toml, then requirements.txt."""

from __future__ import annotations

from pathlib import Path

import pytest

from build_hooks.core.errors import PinError
from build_hooks.proofs.pin import OPTION, find_pin, optional_pin, pinned_torch

REPO = Path(__file__).resolve().parents[2]


def pyproject(root, deps, extras=None):
    body = ", ".join(f'"{d}"' for d in deps)
    text = f'[project]\nname = "t"\nversion = "0"\ndependencies = [{body}]\n'
    if extras:
        text += "\n[project.optional-dependencies]\n" + "".join(
            f"{name} = [{', '.join(repr(d) for d in reqs)}]\n" for name, reqs in extras.items())
    (root / "pyproject.toml").write_text(text)


def test_the_option_wins_over_both_files(tmp_path):
    pyproject(tmp_path, ["torch==2.1.0"])
    (tmp_path / "requirements.txt").write_text("torch==2.2.0\n")
    assert find_pin(tmp_path, "2.3.0").version == "2.3.0" and find_pin(tmp_path, "2.3.0").source == OPTION
    assert pinned_torch(tmp_path, "torch==2.3.1") == "2.3.1"


def test_pyproject_wins_over_requirements(tmp_path):
    pyproject(tmp_path, ["mkdocs", "torch == 2.1.0 ; python_version >= '3.11'"])
    (tmp_path / "requirements.txt").write_text("torch==2.2.0\n")
    pin = find_pin(tmp_path)
    assert (pin.version, pin.source) == ("2.1.0", str(tmp_path.resolve() / "pyproject.toml"))


def test_a_pyproject_without_a_torch_pin_passes_to_requirements(tmp_path):
    pyproject(tmp_path, ["torch>=2"])
    (tmp_path / "requirements.txt").write_text("# the site\nmkdocs-material\ntorch==2.2.0+cpu  # proofs\n")
    assert find_pin(tmp_path).version == "2.2.0+cpu"


def test_a_broken_pyproject_is_an_error_not_a_file_to_skip(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project\n")
    (tmp_path / "requirements.txt").write_text("torch==2.2.0\n")
    with pytest.raises(PinError, match=r"pyproject.toml: cannot read the torch pin"):
        find_pin(tmp_path)


def test_no_pin_names_every_place_and_what_it_found(tmp_path):
    pyproject(tmp_path, ["torch"])
    with pytest.raises(PinError) as info:
        find_pin(tmp_path)
    message = str(info.value)
    assert "the `torch` option: not set" in message
    assert (f"{tmp_path.resolve() / 'pyproject.toml'}: [project] dependencies and optional-dependencies have "
            "no exact torch pin") in message
    assert f"{tmp_path.resolve() / 'requirements.txt'}: not found" in message
    assert 'torch: "2.14.1"' in message  # the fix


@pytest.mark.parametrize("value", [2.1, "latest", "torch>=2"])
def test_a_bad_option_says_how_to_write_it(tmp_path, value):
    with pytest.raises(PinError, match="not a torch version.*quoted"):
        find_pin(tmp_path, value)


@pytest.mark.parametrize("line", [
    "torch==2.14.1 \\\n    --hash=sha256:0123456789abcdef \\\n    --hash=sha256:fedcba9876543210\n",
    "Torch==2.14.1\n",
    "torch[opt-einsum]==2.14.1\n",
    "torch == 2.14.1 ; python_version >= '3.11'  # the proofs' torch\n",
])
def test_requirements_forms_pip_accepts_are_read(tmp_path, line):
    head = "# via pip-compile\n-r base.txt\n-c constraints.txt\nmkdocs==1.6.1\n"
    (tmp_path / "requirements.txt").write_text(head + line)
    assert find_pin(tmp_path).version == "2.14.1"


@pytest.mark.parametrize("dep", ["Torch==2.14.1", "torch[opt-einsum]==2.14.1", "TORCH == 2.14.1"])
def test_pyproject_forms_pep508_accepts_are_read(tmp_path, dep):
    pyproject(tmp_path, [dep])
    assert find_pin(tmp_path).version == "2.14.1"


@pytest.mark.parametrize("line", ["torch>=2.14", "torch==2.*", "torch==2.14.1,<3", "torchvision==0.20.0",
                                  "# torch==2.14.1", "torch @ https://example.org/torch-2.14.1.whl"])
def test_non_exact_or_other_requirements_are_no_pin(tmp_path, line):
    (tmp_path / "requirements.txt").write_text(line + "\n")
    with pytest.raises(PinError, match="requirements.txt: has no exact torch pin"):
        find_pin(tmp_path)


def test_an_extra_pins_torch_so_that_installing_the_tool_does_not(tmp_path):
    """The series pins torch in an extra: read there, and a self-reference or a range elsewhere
    is no second pin; requirements.txt is not read once pyproject.toml pins it."""
    pyproject(tmp_path, ["mkdocs>=1.6", "torch>=2"], {"series": ["torch==2.14.1"], "test": ["t[series]", "pytest"]})
    (tmp_path / "requirements.txt").write_text("torch==2.2.0\n")
    pin = find_pin(tmp_path)
    assert (pin.version, pin.source) == ("2.14.1", str(tmp_path.resolve() / "pyproject.toml"))


def test_the_same_pin_twice_is_one_pin_two_versions_are_an_error(tmp_path):
    pyproject(tmp_path, ["torch==2.14.1"], {"series": ["torch==2.14.1"]})
    assert find_pin(tmp_path).version == "2.14.1"
    pyproject(tmp_path, ["torch==2.14.1"], {"gpu": ["torch==2.13.0"]})
    with pytest.raises(PinError) as info:
        find_pin(tmp_path)
    message = str(info.value)
    assert "two torch pins" in message and "torch==2.14.1 in [project].dependencies" in message
    assert "torch==2.13.0 in [project.optional-dependencies].gpu" in message


def test_no_pin_is_none_for_a_site_without_torch(tmp_path):
    """A site whose proofs never import torch needs no pin: optional_pin says None where
    find_pin raises; a bad option or an unreadable file is still an error."""
    assert optional_pin(tmp_path) is None
    (tmp_path / "requirements.txt").write_text("mkdocs-material\n")
    assert optional_pin(tmp_path) is None
    with pytest.raises(PinError, match="not a torch version"):
        optional_pin(tmp_path, "latest")
    (tmp_path / "pyproject.toml").write_text("[project\n")
    with pytest.raises(PinError, match="cannot read the torch pin"):
        optional_pin(tmp_path)


def test_the_series_pins_torch_once_in_its_series_extra():
    """This repository: the pin lives in pyproject.toml's `series` extra, nowhere else (not in
    the dependencies, which would make every install of the tool pull torch, nor in mkdocs.yml
    or a requirements.txt)."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert find_pin(REPO).source == str(REPO / "pyproject.toml")
    assert not any(dep.lower().startswith("torch") for dep in project["dependencies"])
    exact = [(extra, dep) for extra, deps in project["optional-dependencies"].items() for dep in deps
             if dep.replace(" ", "").lower().startswith("torch==")]
    assert exact == [("series", f"torch=={pinned_torch(REPO)}")]
    assert not (REPO / "requirements.txt").exists()
    assert "torch:" not in (REPO / "mkdocs.yml").read_text().split("plugins:", 1)[1].split("markdown_extensions:", 1)[0]
