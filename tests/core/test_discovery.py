import pytest

from build_hooks.core.errors import LdrError
from build_hooks.proofs.datalines import key_paths, lookup, parse_output
from build_hooks.proofs.discovery import discover, load_proof


def test_docstring_and_options(project):
    path = project.proof("fixed_cost", """
        import torch
        PROOF = {"timeout": 30, "accelerator": "prefer", "parallel": True}
        print(1)
    """, doc="The fixed cost of one op.\n\nEvery op pays a toll\nbefore any work.")
    proof = load_proof(path)
    assert (proof.name, proof.title, proof.purpose) == (
        "fixed_cost", "The fixed cost of one op", "Every op pays a toll before any work.")
    assert (proof.timeout, proof.accelerator, proof.parallel) == (30.0, "prefer", True)
    assert len(proof.sha256) == 64


def test_defaults_and_private_files_skipped(project):
    project.proof("plain", "print(1)\n")
    (project.root / "proofs" / "_helper.py").write_text("x = 1\n")
    proofs = discover(project.root / "proofs")
    assert list(proofs) == ["plain"]
    assert (proofs["plain"].timeout, proofs["plain"].accelerator, proofs["plain"].parallel) == (120.0, "none", False)


@pytest.mark.parametrize("options, fragment", [
    ('{"timeout": limit}', "must be a literal dict"),
    ('{"timout": 3}', "unknown PROOF option 'timout'"),
    ('{"accelerator": "gpu"}', "must be one of none, prefer, require"),
    ('{"parallel": "yes"}', "'parallel' must be bool"),
    ('{"timeout": 0}', "positive number"),
    ('[1]', "must be a dict"),
])
def test_bad_options_name_file_and_line(project, options, fragment):
    path = project.proof("bad", f"import torch\n\nPROOF = {options}\n")
    with pytest.raises(LdrError) as info:
        load_proof(path)
    assert f"{path}:6" in str(info.value) and fragment in str(info.value)


def test_bad_name_is_refused(project):
    (project.root / "proofs" / "Bad-Name.py").write_text("print(1)\n")
    with pytest.raises(LdrError, match="rename the file"):
        discover(project.root / "proofs")


def test_data_lines_are_hidden_and_parsed():
    out = parse_output(["hello", 'TOLL={"us": 0.5, "list": [1, 2]}', "BAD={oops", "", "X=1", "X=2", ""])
    assert out.visible == ["hello", "BAD={oops"]
    assert out.data == {"TOLL": {"us": 0.5, "list": [1, 2]}, "X": 2}
    assert any("BAD= is not valid JSON" in p for p in out.problems)
    assert any("X printed twice" in p for p in out.problems)
    assert lookup(out.data, "TOLL.list.1") == 2
    with pytest.raises(KeyError, match="TOLL.nope"):
        lookup(out.data, "TOLL.nope")
    assert key_paths(out.data) == ["TOLL.us", "TOLL.list.0", "X"]


def test_an_integer_too_long_to_convert_is_a_problem_not_a_crash():
    # json.loads raises a plain ValueError (no .msg) for an integer past int()'s digit limit
    out = parse_output(["BIG=" + "1" * 5000, "X=1"])
    assert out.data == {"X": 1}
    [problem] = out.problems
    assert problem.startswith("output line 1: BIG= is not valid JSON (Exceeds the limit (4300 digits)"), problem
