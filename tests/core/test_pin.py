"""Where the torch pin comes from: the torch option, then pyproject.toml, then requirements.txt."""

from __future__ import annotations

import pytest

from build_hooks.core.errors import PinError
from build_hooks.proofs.pin import OPTION, find_pin, pinned_torch


def pyproject(root, deps):
    body = ", ".join(f'"{d}"' for d in deps)
    (root / "pyproject.toml").write_text(f'[project]\nname = "t"\nversion = "0"\ndependencies = [{body}]\n')


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
    assert f"{tmp_path.resolve() / 'pyproject.toml'}: [project].dependencies has no exact torch pin" in message
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
