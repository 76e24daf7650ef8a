"""Every config snippet in README.md parses: ```yaml blocks as MkDocs and Zensical load them
(``!ENV`` and ``!!python/...`` tags, whose dotted names must exist), ```toml blocks with tomllib."""

from __future__ import annotations

import importlib
import re
import textwrap
import tomllib
from pathlib import Path

import pytest
import yaml

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<lang>yaml|yml|toml)[ \t]*\n(?P<body>.*?)"
                   r"^(?P=indent)(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)


class ConfigLoader(yaml.SafeLoader):
    """Safe, plus the tags mkdocs.yml files use. A ``!!python/name:`` or
    ``!!python/object/apply:`` target is imported and looked up, never called."""


def _env(loader, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    raise yaml.constructor.ConstructorError(None, None, f"!ENV takes a name or a list, not {node.id}",
                                            node.start_mark)


def _dotted(loader, suffix, node):
    module, _, name = suffix.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise yaml.constructor.ConstructorError(None, None, f"{suffix!r} does not exist: {exc}",
                                                node.start_mark) from exc


def _apply(loader, suffix, node):
    target = _dotted(loader, suffix, node)
    if not callable(target):
        raise yaml.constructor.ConstructorError(None, None, f"{suffix!r} is not callable", node.start_mark)
    return ("applied", suffix)


ConfigLoader.add_constructor("!ENV", _env)
ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/name:", _dotted)
ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/object/apply:", _apply)


def snippets(text: str) -> list[tuple[int, str, str]]:
    """(line, language, body) of every yaml or toml fence."""
    return [(text.count("\n", 0, m.start()) + 1, m.group("lang"), textwrap.dedent(m.group("body")))
            for m in FENCE.finditer(text)]


def parse(lang: str, body: str):
    if lang == "toml":
        return tomllib.loads(body)
    return yaml.load(body, Loader=ConfigLoader)


SNIPPETS = snippets(README.read_text(encoding="utf-8"))


def test_the_readme_has_config_snippets():
    assert any(lang in ("yaml", "yml") for _, lang, _ in SNIPPETS)


@pytest.mark.parametrize("line,lang,body", SNIPPETS, ids=[f"README.md:{line}" for line, _, _ in SNIPPETS])
def test_snippet_parses(line, lang, body):
    try:
        parsed = parse(lang, body)
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        pytest.fail(f"README.md:{line}: the {lang} snippet does not parse: {exc}")
    assert isinstance(parsed, dict), f"README.md:{line}: a config snippet is a mapping, got {type(parsed).__name__}"


def test_a_snippet_that_does_not_parse_fails():
    # A tag in a flow mapping swallows the comma after it: the form the README once had.
    broken = ("markdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n"
              "        - {name: proof, format: !!python/name:build_hooks.hosts.markdown.extension.fence_format, "
              "validator: !!python/name:build_hooks.hosts.markdown.extension.fence_validator}\n")
    with pytest.raises(yaml.YAMLError):
        parse("yaml", broken)
    with pytest.raises(yaml.YAMLError, match="does not exist"):
        parse("yaml", "format: !!python/name:build_hooks.hosts.markdown.extension.no_such_thing\n")
    with pytest.raises(tomllib.TOMLDecodeError):
        parse("toml", "[project\nname = 1\n")


def test_fences_are_found_with_their_lines():
    text = ("intro\n\n```yaml\na: 1\n```\n\n````toml\nb = 2\n````\n\n```python\nc = 3\n```\n\n"
            "- in a list:\n\n  ```yaml\n  d:\n    - 4\n  ```\n")
    assert snippets(text) == [(3, "yaml", "a: 1\n"), (7, "toml", "b = 2\n"), (17, "yaml", "d:\n  - 4\n")]


def test_mkdocs_yml_parses_with_the_same_loader():
    config = parse("yaml", (README.parent / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["watch"] == ("applied", "build_hooks.hosts.zensical.site.prepare")
