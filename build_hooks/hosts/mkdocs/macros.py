"""Inline values beside mkdocs-macros-plugin, which also reads ``{{ ... }}``.

macros renders each page's Markdown with jinja2 in its ``on_page_markdown``; ours are read
later, when the ldr extension converts the page. Left to jinja, ``{{ cost.DATA.us | .2f }}``
is a syntax error (``.2f`` is no filter) that macros puts in place of the whole page, and
``{{ cost.DATA.us }}`` an undefined name. So when macros is listed, the plugin **holds** our
values out of jinja's sight: early (priority 50, before macros' 0) each ``{{ proof.KEY }}``
whose name is a proof's, and each ``{{ torch.version }}``/``{{ torch.tag }}``, becomes a
placeholder that jinja passes through as text; late (priority -50, after macros) the
placeholders become the values' own text again, for the extension. Everything else in
``{{ }}`` is macros', in any order of the two plugins in ``mkdocs.yml``, whatever jinja
delimiters macros is given, on pages it renders or not.

What still collides is said at the start of the build, with the fix: a proof named like a
variable macros gives pages (``page``, ``config``, ``extra``...: ``{{ page.title }}`` would
read the proof), and a plugin that makes macros run before the hold.
"""

from __future__ import annotations

from collections.abc import Iterable

from build_hooks.pages.locate import VALUE

MODULE = "mkdocs_macros"
TOKEN = "\ue000ldr{}\ue001"  # private-use characters: plain text to jinja, never typed by an author
HOLD_PRIORITY, RESTORE_PRIORITY = 50, -50


def macros_plugin(config):
    """The mkdocs-macros-plugin instance the site lists (None when it lists none)."""
    for plugin in (config.plugins or {}).values():
        if type(plugin).__module__.split(".")[0] == MODULE:
            return plugin
    return None


class Held:
    """Our values out of a page while macros renders it (one page at a time)."""

    def __init__(self) -> None:
        self.spans: list[str] = []

    def hold(self, markdown: str, proofs: Iterable[str]) -> str:
        names = set(proofs) | {"torch"}
        self.spans = []

        def swap(match) -> str:
            if match.group("proof") not in names:
                return match.group(0)  # macros' own: {{ config.site_name }}
            self.spans.append(match.group(0))
            return TOKEN.format(len(self.spans) - 1)

        return VALUE.sub(swap, markdown)

    def restore(self, markdown: str) -> str:
        for index, text in enumerate(self.spans):
            markdown = markdown.replace(TOKEN.format(index), text)
        self.spans = []
        return markdown


def clashes(plugin, proofs: Iterable[str]) -> list[str]:
    """What would still collide with macros, each with its fix (empty: nothing)."""
    if plugin is None:
        return []
    given = set(getattr(plugin, "variables", None) or ()) | {"page", "config", "extra", "macros", "filters",
                                                             "navigation", "files", "environment", "plugin"}
    return [f"proof {name} has the name of a variable mkdocs-macros-plugin gives pages, so "
            f"{{{{ {name}.x }}}} reads the proof and never macros' {name}; fix: rename proofs/{name}.py"
            for name in sorted(set(proofs) & given)]


def order_problem(config, ours, plugin) -> str | None:
    """A message when mkdocs-macros-plugin reads ``{{ }}`` and its on_page_markdown would run
    before the hold of ``ours`` (another plugin raised its priority), else None."""
    if plugin is None or (plugin.config.get("j2_variable_start_string") or "{{") != "{{":
        return None
    handlers = list((getattr(config.plugins, "events", None) or {}).get("page_markdown", ()))
    mine = [i for i, h in enumerate(handlers) if getattr(h, "__self__", None) is ours]
    theirs = [i for i, h in enumerate(handlers) if getattr(h, "__self__", None) is plugin]
    if not mine or not theirs or mine[0] < theirs[0]:
        return None
    return ("mkdocs-macros-plugin renders pages before the ldr plugin can hold its {{ }} values out of "
            "jinja's sight (its on_page_markdown has a priority of "
            f"{getattr(handlers[theirs[0]], 'mkdocs_priority', 0)}, the hold {HOLD_PRIORITY}); fix: give "
            "macros other delimiters in mkdocs.yml (j2_variable_start_string: '[[' and "
            "j2_variable_end_string: ']]' under macros), or drop what raised its priority")
