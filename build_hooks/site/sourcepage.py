"""A proof's source as a page of its own, ``proofs/<name>.py.html``, published beside the script.

A card links here instead of carrying the highlighted script folded away in every chapter
(which made a chapter's HTML several times larger for something most readers never open). The
page stands alone, so it is light whatever the theme: the proof's title, a link back to its
card, both downloads (the script, with the helpers it needs, and the notebook), then the script
with line numbers, highlighted by pygments and coloured by a small inline stylesheet, light or
dark as the reader's system prefers. No script, no font, no request for anything else.

The URL is the script's own plus ``.html``: stable, and never a page's (a proof named ``index``
gives ``proofs/index.py.html``, not the proofs index's ``proofs/index.html``). What the script
holds is shown as text: pygments escapes it, and control and bidirectional characters read as
escapes (``\\u202e``), so the code a reader sees is the code that runs. The highlighted code is
cached by the script's hash and the pygments version (``.cache/ldr/highlight``): pygments takes
tens of milliseconds a script, on every build.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import pygments
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from build_hooks.core.cache import TextCache, key_of
from build_hooks.core.textsafe import printable
from build_hooks.pages.links import Pages
from build_hooks.proofs.discovery import Proof
from build_hooks.proofs.imports import needs as what_it_needs


def page_name(name: str) -> str:
    """The file name of a proof's source page: the script's, plus ``.html``."""
    return f"{name}.py.html"


def page_uri(name: str) -> str:
    """Where a proof's source page is published, from the site's root."""
    return f"proofs/{page_name(name)}"


def inline_code(text: str) -> str:
    """Escape a docstring sentence, keeping `backticks` as code (the only markup allowed)."""
    pieces = escape(text).split("`")
    if len(pieces) % 2 == 0:  # an unmatched backtick stays a backtick
        return escape(text)
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


def plain_text(text: str) -> str:
    """The same sentence as plain text (a page's ``<title>``): paired backticks dropped."""
    return text.replace("`", "") if text.count("`") % 2 == 0 else text


def line_count(source: str) -> int:
    return source.count("\n") + (0 if source.endswith("\n") else 1)


# Names and whitespace take the text's own colour: no element for them (a third of the tokens).
_UNCOLOURED = re.compile(r'<span class="[nw]">([^<]*)</span>')


def highlight_source(source: str) -> str:
    """The script as pygments HTML, one line of text per line of the script (spans never cross
    a newline); control and bidirectional characters made visible first."""
    text = printable(source.replace("\r\n", "\n"))
    code = highlight(text, PythonLexer(stripnl=False), HtmlFormatter(nowrap=True))
    code = _UNCOLOURED.sub(r"\1", code)
    return code[:-1] if code.endswith("\n") else code  # the script's last newline ends its last line


def highlighted(root: Path, proof: Proof) -> str:
    """:func:`highlight_source` of the proof, made once per script and pygments version."""
    cache = TextCache.for_project(root, "highlight", ".html")
    return cache.get_or_make(key_of(proof.sha256, pygments.__version__), lambda: highlight_source(proof.source))


# Colours: the package's palette (assets/ldr-palette.css) for the text, mkdocs-material's for code.
STYLE = """\
:root{color-scheme:light dark;--bg:#fffdf9;--fg:#1f2a44;--soft:#4f5d7a;--faint:#646b78;--rule:#dfe2e8;\
--panel:#f6f4ef;--a:#a63d09;--k:#3f6ec6;--s:#1c7d4d;--x:#db1457;--m:#d52a2a;--f:#a846b9;--c:#6e59d9}
@media (prefers-color-scheme:dark){:root{--bg:#1a1c23;--fg:#e6e9f2;--soft:#a9b4cc;--faint:#9ca3af;\
--rule:#3a3f4d;--panel:#13151b;--a:#f5a262;--k:#6791e0;--s:#2fb170;--x:#f06090;--m:#e6695b;--f:#c973d9;--c:#9383e2}}
body{margin:0 auto;max-width:56rem;padding:1.2rem 1rem 2.5rem;background:var(--bg);color:var(--fg);\
font:1rem/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","Liberation Sans",sans-serif}
code,pre{font-family:ui-monospace,"SFMono-Regular","Cascadia Mono","DejaVu Sans Mono","Liberation Mono",monospace}
a{color:var(--a);text-underline-offset:.2em}
a:has(>code){text-underline-offset:.35em}
p{margin:.3rem 0}
.back{margin-bottom:1rem;font-size:.9rem}
.label{font-size:.75rem;font-weight:700;letter-spacing:.12em;text-transform:uppercase;color:var(--faint)}
h1{margin:.1rem 0 .4rem;font-size:1.45rem;line-height:1.25}
h1 code,.get code,.file code{font-size:.9em}
.get{color:var(--soft);font-size:.9rem}
.file{margin-top:1.2rem;color:var(--faint);font-size:.8rem}
.src{display:flex;overflow-x:auto;border:1px solid var(--rule);border-radius:.3rem;background:var(--panel);\
font-size:.8rem;line-height:1.55}
.src pre{margin:0;padding:.8rem .9rem}
.ln{position:sticky;left:0;flex:none;text-align:right;color:var(--faint);background:var(--panel);\
border-right:1px solid var(--rule);-webkit-user-select:none;user-select:none}
.code{flex:1 0 auto}
.code .k,.code .kd,.code .kn,.code .kp,.code .kr,.code .kt,.code .nd,.code .ow{color:var(--k)}
.code .s,.code .s1,.code .s2,.code .sa,.code .sb,.code .sc,.code .si,.code .ss,.code .dl{color:var(--s)}
.code .se,.code .sh,.code .sr,.code .sx{color:var(--x)}
.code .m,.code .mb,.code .mf,.code .mh,.code .mi,.code .mo,.code .il{color:var(--m)}
.code .nc,.code .ne,.code .nf,.code .fm,.code .nn{color:var(--f)}
.code .bp,.code .nb,.code .no,.code .kc{color:var(--c)}
.code .c,.code .c1,.code .ch,.code .cm,.code .cs,.code .cp,.code .sd,.code .o,.code .p{color:var(--soft)}
"""


def render_page(proof: Proof, code: str, card_href: str | None) -> str:
    """The page: ``code`` is :func:`highlight_source` of the proof; ``card_href`` its card,
    relative to ``proofs/`` (None: no page shows one; the link goes to the site's home page,
    ``../index.html``, which a site read from files has too)."""
    name, script = proof.name, proof.path.name
    lines = line_count(proof.source)
    back = (f'<a href="{escape(card_href)}">&larr; Back to the card</a>' if card_href
            else '<a href="../index.html">&larr; Back to the site</a>')  # with or without directory URLs
    needs = what_it_needs(proof.torch, [f'<a href="{escape(helper)}" download><code>'
                                        f"{escape(helper)}</code></a>" for helper, _ in proof.helpers])
    numbers = "\n".join(str(n) for n in range(1, lines + 1))
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{escape(plain_text(proof.title))} · proofs/{escape(script)}</title>\n"
        f"<style>\n{STYLE}</style>\n</head>\n<body>\n<header>\n"
        f'<p class="back">{back}</p>\n<p class="label">Proof source</p>\n'
        f"<h1>{inline_code(proof.title)}</h1>\n"
        f'<p class="get"><a href="{escape(script)}" download>Download <code>{escape(script)}'
        f'</code></a>, {needs} · <a href="{escape(name)}.ipynb" download>or as a '
        f"notebook, <code>{escape(name)}.ipynb</code></a></p>\n</header>\n<main>\n"
        f'<p class="file"><code>proofs/{escape(script)}</code> · {lines} line{"" if lines == 1 else "s"}</p>\n'
        f'<div class="src" tabindex="0" role="region" aria-label="proofs/{escape(script)}">'
        f'<pre class="ln" aria-hidden="true">{numbers}</pre>'
        f'<pre class="code"><code>{code}</code></pre></div>\n</main>\n'
        "</body>\n</html>\n"
    )


def card_href(name: str, cards: Pages | None) -> str | None:
    """The proof's card, as a link from ``proofs/``, or None. Of several pages showing it, the
    first by source path: whatever order a host lists pages in, the page is the same."""
    found = (cards or {}).get(name) or []
    return f"../{min(found)[1]}#proof-{name}" if found else None


def source_pages(root: Path, proofs: dict[str, Proof], cards: Pages | None = None) -> list[tuple[str, bytes]]:
    """``(uri, bytes)`` of every proof's source page; ``cards`` says where each card is (the
    hosts know it from the pages; without it the pages link to the site's home)."""
    return [(page_uri(name), render_page(proof, highlighted(root, proof), card_href(name, cards)).encode("utf-8"))
            for name, proof in sorted(proofs.items())]
