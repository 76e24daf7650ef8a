"""No control character from data reaches a terminal or a log (core/textsafe.py): a proof
that prints terminal sequences, a record that holds them, a file name made of them, seen
through real ``ldr`` and ``mkdocs build`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from build_hooks.core.textsafe import SafeStream, printable

from .hardkit import fake_torch, ldr, mkdocs, no_raw_controls

EVIL = "\x1b[2J\x1b]0;pwned\x07"
SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07"


@pytest.mark.parametrize("text, shown", [
    (EVIL, SHOWN),
    ("csi \x9b31m del \x7f nul \x00 cr \r", "csi \\u009b31m del \\u007f nul \\x00 cr \\x0d"),
    ("bidi \u202eevil\u202c", "bidi \\u202eevil\\u202c"),
    ("tab\tand\nnewline stay; ␛ pictures and é stay", "tab\tand\nnewline stay; ␛ pictures and é stay"),
])
def test_printable_escapes_every_control_but_layout(text, shown):
    assert printable(text) == shown
    assert printable(printable(text)) == shown  # escaping twice changes nothing more


def test_json_printed_through_the_guard_reads_back_as_the_same_data():
    import io

    data = {"out": "a\u009bb\u007fc\u202e", "esc": "\x1b"}
    sink = io.StringIO()
    SafeStream(sink).write(json.dumps(data, ensure_ascii=False))
    no_raw_controls(sink.getvalue())
    assert json.loads(sink.getvalue()) == data


@pytest.fixture
def evil(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    project.proof("evil", f"""
        import sys
        print({EVIL!r} + " out")
        print({EVIL!r} + " err", file=sys.stderr)
        sys.exit(3)
    """)
    project.page("index.md", "# Home\n\n```proof\nevil\n```\n")
    return project, env


def test_a_proof_printing_terminal_sequences_reaches_no_terminal(evil):
    project, env = evil
    run = ldr(project.root, env, "run")
    assert run.returncode == 1, run.stderr
    no_raw_controls(run.stdout + run.stderr)
    assert f"{SHOWN} err" in run.stdout  # shown, escaped, in the failure's last lines
    record = json.loads(project.record("evil").read_text())
    assert record["stdout"] == [f"{EVIL} out"]  # the record keeps the proof's own text

    status = ldr(project.root, env, "status")
    no_raw_controls(status.stdout + status.stderr)
    assert f"{SHOWN} out" in status.stdout and f"{SHOWN} err" in status.stdout
    check = ldr(project.root, env, "check")
    assert check.returncode == 1
    no_raw_controls(check.stdout + check.stderr)

    build = mkdocs(project.root, env)  # not strict: the failure is a warning
    assert build.returncode == 0, build.stderr
    no_raw_controls(build.stdout + build.stderr)
    assert "proof evil (cpu) failed" in build.stderr and "pwned" in build.stderr


def test_a_record_holding_terminal_sequences_reaches_no_terminal(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    project.proof("fine", 'print("fine")\n')
    project.page("index.md", "# Home\n\n```proof\nfine\n```\n")
    assert ldr(project.root, env, "run").returncode == 0
    path = project.record("fine")
    record = json.loads(path.read_text())
    record["problems"] = [f"line 1 {EVIL} is not a data line"]  # as a bad data line would leave it
    path.write_text(json.dumps(record))
    for args in (("status",), ("check",), ("run",)):
        out = ldr(project.root, env, *args)
        no_raw_controls(out.stdout + out.stderr)
        assert "pwned" in out.stdout + out.stderr, args
    build = mkdocs(project.root, env)
    no_raw_controls(build.stdout + build.stderr)
    assert f"line 1 {SHOWN} is not a data line" in build.stderr

    record["wall_s"] = f"slow {EVIL}"  # a corrupt field is quoted in the error
    path.write_text(json.dumps(record))
    for args in (("status",), ("check",)):
        out = ldr(project.root, env, *args)
        no_raw_controls(out.stdout + out.stderr)
        assert "pwned" in out.stdout + out.stderr, args
    build = mkdocs(project.root, env)
    no_raw_controls(build.stdout + build.stderr)
    assert "pwned" in build.stderr


def test_file_names_and_arguments_reach_no_terminal(project, tmp_path):
    env = fake_torch(tmp_path / "fake")
    project.proof("fine", 'import torch\nprint("fine")\n')  # a torch proof: drift compares torch versions
    assert ldr(project.root, env, "run").returncode == 0
    for args in (("merge", str(tmp_path / f"shard{EVIL}")), ("drift", "--from", f"1.0{EVIL}"),
                 ("run", f"no{EVIL}such"), ("status", f"no{EVIL}such")):
        out = ldr(project.root, env, *args)
        assert out.returncode != 0, args
        no_raw_controls(out.stdout + out.stderr)
        assert "pwned" in out.stdout + out.stderr, (args, out.stderr)


def test_a_document_piped_from_ldr_is_written_as_it_is(project, tmp_path):
    """`ldr draw IN -` and `ldr notebook` write data to standard output: piped, not a
    terminal, it is not altered (an escape would change the SVG's text); messages still are."""
    scene = {"type": "excalidraw", "version": 2, "appState": {}, "elements": [{
        "type": "text", "id": "t1", "x": 0, "y": 0, "width": 80, "height": 20, "text": "a\u202eb",
        "originalText": "a\u202eb", "fontSize": 16, "fontFamily": 1, "strokeColor": "#000000",
        "backgroundColor": "transparent", "fillStyle": "solid", "strokeWidth": 1, "strokeStyle": "solid",
        "roughness": 1, "opacity": 100, "angle": 0, "seed": 1, "version": 1, "versionNonce": 1,
        "isDeleted": False, "groupIds": [], "boundElements": None, "link": None, "locked": False,
        "textAlign": "left", "verticalAlign": "top", "containerId": None, "lineHeight": 1.25}]}
    path = tmp_path / "s.excalidraw"
    path.write_text(json.dumps(scene))
    env = fake_torch(tmp_path / "fake")
    drawn = ldr(project.root, env, "draw", str(path), "-", "--fonts", "none")
    assert drawn.returncode == 0, drawn.stderr
    assert "a\u202eb" in drawn.stdout and "\\u202e" not in drawn.stdout
    missing = ldr(project.root, env, "draw", str(tmp_path / f"no{EVIL}.excalidraw"), "-")
    assert missing.returncode != 0 and "pwned" in missing.stderr
    no_raw_controls(missing.stderr)


def test_an_error_quoting_an_interpreter_reaches_no_terminal(project, tmp_path):
    """An error message that quotes what the proof interpreter printed (it died at start),
    through ldr's error line, MkDocs' error and Zensical's warning."""
    from build_hooks.directives.registry import registry

    FENCES = registry().fences

    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nprintf '\\033[2J\\033]0;pwned\\007 broken\\n' >&2\nexit 1\n")
    python.chmod(0o755)
    env = {"LDR_PYTHON": str(python), "NO_MKDOCS_2_WARNING": "1"}
    project.proof("fine", 'print("fine")\n')
    project.page("index.md", "# Home\n\n```proof\nfine\n```\n")
    run = ldr(project.root, env, "run")
    assert run.returncode == 2 and "exited at start" in run.stderr and "pwned" in run.stderr, run.stderr
    no_raw_controls(run.stdout + run.stderr)
    build = mkdocs(project.root, env)
    assert build.returncode == 1 and "exited at start" in build.stderr and "pwned" in build.stderr
    no_raw_controls(build.stdout + build.stderr)

    target = "build_hooks.hosts.markdown.extension"
    fences = "".join(f"        - {{name: {name}, class: ldr-{name}, format: !!python/name:{target}.fence_format , "
                     f"validator: !!python/name:{target}.fence_validator }}\n" for name in FENCES)
    (project.root / "mkdocs.yml").write_text(
        "site_name: Test\nwatch: !!python/object/apply:build_hooks.hosts.zensical.site.prepare []\n"
        "theme:\n  name: material\n  font: false\nplugins:\n  - ldr\nmarkdown_extensions:\n  - attr_list\n"
        f"  - pymdownx.superfences:\n      custom_fences:\n{fences}  - {target}\n")
    zensical = subprocess.run([sys.executable, "-m", "zensical", "build"], cwd=project.root, capture_output=True,
                              text=True, env={**os.environ, **env}, timeout=300, stdin=subprocess.DEVNULL)
    said = zensical.stdout + zensical.stderr
    assert "exited at start" in said and "pwned" in said, said
    no_raw_controls(said)
