"""The ``source`` fence: lines of the pinned torch's own files, quoted where the prose relies on them.

::

    ```source
    file: tools/autograd/derivatives.yaml
    from: "- name: mm(Tensor self"
    ```

shows the ``mm`` entry of derivatives.yaml under its repository path, with its line numbers
and a link to the same lines at the release's tag. Options: ``file`` and ``from`` (required),
``to`` and ``nth`` (see :mod:`build_hooks.proofs.sources`), ``say`` (a caption in the author's
words) and ``id`` (a name claims use: ``quote: ID`` with ``QUOTE.text`` in the check).
A quote whose pattern no longer matches is a directive error naming the page and line.
"""

from __future__ import annotations

import re
from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer, PythonLexer, TextLexer, YamlLexer

from build_hooks.core.errors import DirectiveError
from build_hooks.proofs.pin import public_version
from build_hooks.proofs.sources import Quote, quote
from build_hooks.render.safe import element_text

OPTIONS = ("file", "from", "to", "nth", "say", "id")
ID = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
_LEXERS = {".yaml": YamlLexer, ".yml": YamlLexer, ".py": PythonLexer, ".pyi": PythonLexer,
           ".h": CppLexer, ".hpp": CppLexer, ".cpp": CppLexer, ".cuh": CppLexer, ".cu": CppLexer}
_LANGUAGE = {YamlLexer: "yaml", PythonLexer: "python", CppLexer: "cpp", TextLexer: "text"}
# Tokens the theme draws in the code's own colour (whitespace, names: mkdocs-material's
# --md-code-hl-name-color is the code colour) need no element: their text is written bare. So is
# punctuation, which the theme draws a shade lighter: brackets and commas read as well in the
# code's colour, and they were a third of a quote's elements.
_PLAIN_TOKEN = re.compile(r'<span class="(?:w|n|nx|p)">([^<]*)</span>')
_SAME_TOKEN = re.compile(r'</span>([ \t]*)<span class="([^"]+)">')  # joined when the class is the same


def read_options(options: dict) -> dict:
    """The fence's options, checked: raises DirectiveError naming what is wrong and the fix."""
    unknown = sorted(str(k) for k in set(options) - set(OPTIONS))
    if unknown:
        raise DirectiveError(f"the source fence does not take {', '.join(unknown)}; it takes "
                             f"{', '.join(OPTIONS)}")
    for name in ("file", "from"):
        if not isinstance(options.get(name), str) or not options[name].strip():
            raise DirectiveError(f"the source fence needs `{name}:` (text); e.g. file: "
                                 "tools/autograd/derivatives.yaml and from: \"- name: mm(Tensor self\"")
    for name in ("to", "say"):
        if name in options and not isinstance(options[name], str):
            raise DirectiveError(f"the source fence's `{name}:` must be text, not {options[name]!r}")
    nth = options.get("nth")
    if nth is not None and (not isinstance(nth, int) or isinstance(nth, bool) or not 1 <= nth <= 10000):
        raise DirectiveError(f"the source fence's `nth:` must be a whole number from 1, not {nth!r}")
    ident = options.get("id")
    if ident is not None and not (isinstance(ident, str) and ID.match(ident)):
        raise DirectiveError(f"the source fence's `id:` must be a short lower-case name such as "
                             f"mm-backward, not {ident!r}")
    return options


def resolve(options: dict) -> Quote:
    options = read_options(options)
    return quote(options["file"], options["from"], options.get("to"), options.get("nth"))


def lexer_for(path: str):
    for suffix, lexer in _LEXERS.items():
        if path.endswith(suffix):
            return lexer
    return TextLexer


def _join_tokens(line: str) -> str:
    """Two tokens of one class with only spaces between them become one (the spaces take its
    colour, which shows nothing)."""
    out: list[str] = []
    pos = 0
    for m in _SAME_TOKEN.finditer(line):
        before = line.rfind('<span class="', 0, m.start())
        same = before >= 0 and line.startswith(f'<span class="{m.group(2)}">', before)
        out.append(line[pos:m.start()] + (m.group(1) if same else m.group(0)))
        pos = m.end()
    out.append(line[pos:])
    return "".join(out)


def render(found: Quote, say: str | None = None) -> str:
    """The quote as HTML: caption (path, lines, torch), line numbers and highlighted code."""
    lexer = lexer_for(found.path)
    # pygments closes and reopens its spans at each newline, so every line is balanced HTML
    lines = [_join_tokens(line) for line in _PLAIN_TOKEN.sub(r"\1", highlight(
        found.text + "\n", lexer(stripnl=False), HtmlFormatter(nowrap=True))).split("\n")]
    # numbered by the stylesheet, counting from the first line (a counter, not a number per line)
    code = "".join(f'<span class="ldr-quote__l">{line}\n</span>' for line in lines[:found.last - found.first + 1])
    shown = found.repo or found.path
    where = f"lines {found.first}\u2013{found.last}" if found.last > found.first else f"line {found.first}"
    label = f"<code>{escape(shown)}</code>, {where}, torch {escape(found.torch)}"
    if found.url:
        head = f'<a class="ldr-quote__src" href="{escape(found.url, quote=True)}">{label}</a>'
    else:
        head = (f'<span class="ldr-quote__src">{label}</span> <span class="ldr-quote__gen">(generated '
                "when torch is built; the repository has no such file)</span>")
    caption = f'<span class="ldr-quote__say">{element_text(say)}</span> ' if say else ""
    return (f'<figure class="ldr-quote" data-file="{escape(found.path, quote=True)}">'
            f"<figcaption>{caption}{head}</figcaption>"
            f'<div class="language-{_LANGUAGE[lexer]} highlight"><pre class="ldr-quote__code">'
            f'<code style="counter-reset: ldr-line {found.first - 1}">{code}</code></pre></div></figure>')


def render_fence(options: dict, ctx) -> str:
    found = resolve(options)
    library = ctx.library if ctx is not None else None
    pin = getattr(library, "pin", None)
    if pin is not None and public_version(str(pin)) != found.torch:
        raise DirectiveError(f"the source fence quotes the installed torch {found.torch}, but the pin is "
                             f"{public_version(str(pin))}: its lines would not be the pinned torch's; fix: "
                             "install the pinned torch (`pip install -e .` in this project)")
    note = ctx.quoted if ctx is not None else None
    if note is not None:  # the build keeps what each page quoted (drift, claims)
        note(options, found)
    return render(found, options.get("say"))


__all__ = ["OPTIONS", "read_options", "render", "render_fence", "resolve"]
