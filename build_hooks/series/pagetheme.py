"""Page decoration: the static depth meter and the one-robot-per-page check.

``decorate_page`` is called by the plugin with each page's rendered content. It reads the
floors a page's sections declare (``## Title { data-floor="dispatcher" }``), builds the depth
meter as a ``<nav>`` (one entry per floor, top to bottom; floors that occur link to their first
section) and returns it as ``{"ldr_meter": html, "ldr_meter_empty": bool}`` for ``theme/main.html``.
"""

from __future__ import annotations

import html as _html
import re
from functools import lru_cache
from pathlib import Path

import yaml

from build_hooks.core import yamlbody
from build_hooks.core.cache import file_stamp
from build_hooks.core.errors import DirectiveError
from build_hooks.core.safefs import UnsafeFile, read_text

FLOORS_FILE = Path("data") / "floors.yml"

_HEADING = re.compile(r"<h([1-6])((?:\s+[^>]*)?)>", re.IGNORECASE)
_ATTR = re.compile(r'([A-Za-z_:][-\w:.]*)\s*=\s*"([^"]*)"')
_CLASS_ATTR = re.compile(r'\bclass\s*=\s*"([^"]*)"')


@lru_cache(maxsize=8)
def _load_floors(path: str, stamp: tuple | None) -> tuple[dict, ...]:
    doc = read_data(Path(path), FLOORS_FILE.as_posix()) or {}
    floors = doc.get("floors") if isinstance(doc, dict) else None
    if not isinstance(floors, list) or not floors:
        raise DirectiveError(f"{path}: expected a 'floors' list of {{id, label, description}}")
    out = []
    for item in floors:
        if not isinstance(item, dict) or not {"id", "label", "description"} <= set(item):
            raise DirectiveError(f"{path}: each floor needs id, label and description, got {item!r}")
        out.append({"id": str(item["id"]), "label": str(item["label"]),
                    "short": str(item.get("short") or item["label"]),
                    "description": str(item["description"])})
    return tuple(out)


def load_floors(root: Path) -> list[dict]:
    """The eight floors, top to bottom, from ``data/floors.yml``."""
    path = Path(root) / FLOORS_FILE
    return list(_load_floors(str(path), file_stamp(path)))


def read_data(path: Path, shown: str):
    """A ``data/`` YAML file (``shown`` names it in messages), parsed; only a regular file inside
    ``data/`` (core/safefs.py: a symlink leaving it, a FIFO or a device is refused, never waited
    on). Problems are a DirectiveError naming the file and the fix."""
    try:
        text = read_text(path, inside=path.parent, limit="data")
    except UnsafeFile as exc:
        raise DirectiveError(f"{shown} is {exc.what}: the build does not read it; fix: {exc.fix}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DirectiveError(f"{shown}: cannot read it ({exc}); fix: save it as UTF-8 text") from None
    try:
        return yamlbody.load(text)  # no aliases, bounded depth
    except yaml.YAMLError as exc:
        raise DirectiveError(f"{shown}: not valid YAML ({exc})") from None


def find_floor_sections(html: str) -> list[dict]:
    """Headings that open a floor, in page order: ``{floor, id, level, start, end}``."""
    found = []
    for match in _HEADING.finditer(html):
        attrs = dict(_ATTR.findall(match.group(2) or ""))
        if "data-floor" in attrs:
            found.append({"floor": attrs["data-floor"].strip(), "id": attrs.get("id"),
                          "level": int(match.group(1)), "start": match.start(), "end": match.end()})
    return found


def _annotate(html: str, sections: list[dict], labels: dict[str, str]) -> str:
    """Give every floor heading an id (the toc extension normally has one) so the meter can link
    it, and its floor's label (``data-floor-label``) for the tag drawn above the heading."""
    pieces, last = [], 0
    for n, sec in enumerate(sections):
        tag = html[sec["start"]:sec["end"]]
        extra = ""
        if not sec["id"]:
            sec["id"] = f"floor-{sec['floor']}-{n + 1}"
            extra += f' id="{sec["id"]}"'
        if "data-floor-label=" not in tag:
            extra += f' data-floor-label="{_html.escape(labels[sec["floor"]], quote=True)}"'
        if extra:
            pieces += [html[last:sec["start"]], tag[:-1] + extra + ">"]
            last = sec["end"]
    return "".join(pieces) + html[last:] if pieces else html


def render_meter(floors: list[dict], sections: list[dict]) -> str:
    """The static depth meter. JS later marks the floor being read with aria-current."""
    first: dict[str, str] = {}
    for sec in sections:
        first.setdefault(sec["floor"], sec["id"])
    esc = _html.escape
    rows = []
    for floor in floors:
        fid, label = floor["id"], floor["label"]
        mark = '<span class="ldr-meter__mark" aria-hidden="true"></span>'
        if fid in first:
            rows.append(
                f'<li class="ldr-meter__floor ldr-meter__floor--present" data-floor="{esc(fid)}">'
                f'<a href="#{esc(first[fid], quote=True)}" title="{esc(floor["description"], quote=True)}">'
                f'{mark}<span class="ldr-meter__label">{esc(label)}</span></a></li>')
        else:
            rows.append(
                f'<li class="ldr-meter__floor ldr-meter__floor--absent" data-floor="{esc(fid)}">'
                f'<span title="{esc(floor["description"], quote=True)}">{mark}'
                f'<span class="ldr-meter__label">{esc(label)}'
                f'<span class="ldr-sr-only"> (not on this page)</span></span></span></li>')
    count = len(first)
    summary = (f"{count} of {len(floors)} floors on this page" if count
               else "This page stays above the floors of the stack")
    return (
        '<nav class="ldr-meter" data-ldr-meter aria-labelledby="ldr-meter-title">'
        f'<p class="ldr-meter__title" id="ldr-meter-title">Depth'
        f'<span class="ldr-sr-only">: {esc(summary)}, top to bottom</span></p>'
        f'<ol class="ldr-meter__floors">{"".join(rows)}</ol>'
        + ('' if count else '<p class="ldr-meter__none" aria-hidden="true">No floor marked on this page</p>')
        + '<p class="ldr-meter__now" aria-hidden="true"></p></nav>'
    )


def count_robots(html: str) -> int:
    """How many robot mascots a page shows (roots carry the class ``ldr-robot``)."""
    count, at = 0, html.find("ldr-robot")
    while at >= 0:  # few hits: check each is a whole class token inside a class value
        end = at + len("ldr-robot")
        whole = (html[at - 1] in ' "') and (end >= len(html) or html[end] in ' "')
        quote = html.rfind('"', 0, at)
        if whole and quote > 0 and html.endswith("class=", 0, quote) and ">" not in html[quote:at]:
            count += 1
        at = html.find("ldr-robot", end)
    return count


def decorate_page(html: str, *, root: Path, page_path: str) -> tuple[str, dict, list[str]]:
    """(content html, extra template context, warnings) for one page."""
    warnings: list[str] = []
    floors = load_floors(root)
    known = {f["id"] for f in floors}
    sections = find_floor_sections(html)
    for sec in sections:
        if sec["floor"] not in known:
            warnings.append(f"{page_path}: heading #{sec['id'] or '?'} declares unknown floor "
                            f"{sec['floor']!r}; use one of {', '.join(sorted(known))}")
    sections = [s for s in sections if s["floor"] in known]
    html = _annotate(html, sections, {f["id"]: f["label"] for f in floors})
    robots = count_robots(html)
    if robots > 1:
        warnings.append(f"{page_path}: shows the robot {robots} times; the robot appears at most "
                        "once per page, keep the best line and remove the others")
    # a page with no floor shows no meter bar on phones (theme/partials/ldr-meter.html)
    return html, {"ldr_meter": render_meter(floors, sections), "ldr_meter_empty": not sections}, warnings
