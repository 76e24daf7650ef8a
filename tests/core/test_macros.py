"""Both `{{ }}`s on one site: mkdocs-macros-plugin's jinja variables and our inline values, in real
builds (issue 21, item 10). The ldr plugin holds its values out of jinja's sight while macros
renders a page and puts them back after, so the order of the plugins and macros' delimiters do
not matter; what still collides is said at the start of the build, with the fix."""

from __future__ import annotations

import pytest

from .hardkit import PIN, fake_torch, mkdocs

pytest.importorskip("mkdocs_macros")

COST = 'import json\nprint("one op")\nprint("DATA=" + json.dumps({"us": 0.512}))\n'
PAGE = """\
# Home

Site {open} config.site_name {close}, written by {open} extra.who {close}.

One op costs {{{{ cost.DATA.us | .2f }}}} µs under torch {{{{ torch.version }}}}.

```proof
cost
```
"""
VALUE = '<span class="ldr-value" data-card="#proof-cost" data-format=".2f" data-key="DATA.us" data-proof="cost"'


def site(project, tmp_path, plugins: str, macros_options: str = "", page: str = PAGE,
         delimiters: tuple[str, str] = ("{{", "}}")) -> dict:
    env = fake_torch(tmp_path / "fake")
    project.proof("cost", COST)
    (project.root / "mkdocs.yml").write_text(
        "site_name: Both\nextra:\n  who: Ada\ntheme:\n  name: material\n  font: false\nplugins:\n"
        + "".join(f"  - {name}{':' + macros_options if name == 'macros' and macros_options else ''}\n"
                  for name in plugins.split())
        + "markdown_extensions:\n  - attr_list\n  - pymdownx.superfences\n")
    project.page("index.md", page.format(open=delimiters[0], close=delimiters[1]))
    return env


@pytest.mark.parametrize("plugins", ["ldr macros", "macros ldr"])
def test_a_page_uses_a_macro_variable_and_a_value_in_either_plugin_order(project, tmp_path, plugins):
    env = site(project, tmp_path, plugins)
    build = mkdocs(project.root, env, "--strict")
    assert build.returncode == 0, build.stderr
    html = project.html()
    assert "Site Both, written by Ada." in html  # macros rendered its own
    assert VALUE in html and ">0.51</span> µs under torch " + PIN in html  # and ours
    assert "{{" not in html and "Macro Syntax Error" not in html and "\ue000" not in html


def test_macros_with_other_delimiters_and_a_page_it_does_not_render(project, tmp_path):
    options = "\n      j2_variable_start_string: '[['\n      j2_variable_end_string: ']]'"
    env = site(project, tmp_path, "macros ldr", options, delimiters=("[[", "]]"))
    project.page("plain.md", "---\nrender_macros: false\n---\n# Plain\n\nStill {{ cost.DATA.us | .3f }}, "
                 "not [[ extra.who ]].\n")
    build = mkdocs(project.root, env, "--strict")
    assert build.returncode == 0, build.stderr
    html = project.html()
    assert "Site Both, written by Ada." in html and ">0.51</span>" in html
    plain = project.html("plain")
    assert ">0.512</span>" in plain and "not [[ extra.who ]]." in plain  # macros left this page alone


def test_a_proof_named_like_a_macros_variable_is_named_with_the_fix(project, tmp_path):
    env = site(project, tmp_path, "ldr macros")
    project.proof("page", COST)
    build = mkdocs(project.root, env, "--strict")
    assert build.returncode == 1
    assert ("proof page has the name of a variable mkdocs-macros-plugin gives pages, so {{ page.x }} reads "
            "the proof and never macros' page; fix: rename proofs/page.py") in build.stderr


def test_macros_made_to_run_first_stops_the_build_with_the_fix(project, tmp_path, monkeypatch):
    """Another plugin may raise macros' priority above the hold: the build says so at once."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError
    from mkdocs_macros.plugin import MacrosPlugin

    site(project, tmp_path, "ldr macros")
    monkeypatch.setattr(MacrosPlugin.on_page_markdown, "mkdocs_priority", 100, raising=False)
    monkeypatch.chdir(project.root)
    config = load_config(str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match=r"mkdocs-macros-plugin renders pages before the ldr plugin can hold "
                                          r"its \{\{ \}\} values .* fix: give macros other delimiters"):
        config.plugins.on_config(config)
