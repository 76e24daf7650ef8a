"""MkDocs hooks for the theme's own test site: the theme's handlers on fixture proof records.

Stands in for the project's plugin and Markdown extension (build_hooks.hosts.mkdocs.plugin/markdown) so the
theme can be built and tested on its own: fences go through pymdownx.superfences custom fences,
pages through build_hooks.series.pagetheme.decorate_page; the one stylesheet and one script (the
package's and the theme's files that ``theme.ldr_assets`` lists) are linked and published as the
plugin does it (build_hooks.hosts.mkdocs.setup.add_assets).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import yaml
from mkdocs.structure.files import File

from build_hooks.core.errors import DirectiveError
from build_hooks.directives.context import Context
from build_hooks.hosts.mkdocs.setup import add_assets
from build_hooks.proofs.records import ProofData
from build_hooks.series import metro, robot
from build_hooks.series.instruments import render_fence as instrument_fence
from build_hooks.series.pagetheme import decorate_page
from build_hooks.site import assets

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
log = logging.getLogger("mkdocs.hooks.ldr_theme_test")
_current = {"url": "", "src": None}


def lookup(name: str) -> dict[str, ProofData]:
    found = {}
    for path in sorted(FIXTURES.glob(f"{name}.*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        found[path.name.split(".")[1]] = ProofData(name, rec["data"], rec["provenance"], rec.get("stdout", ""))
    if not found:
        raise DirectiveError(f"unknown proof {name!r}")
    return found


def context() -> Context:
    url = _current["url"]
    return Context(root=ROOT, page=_current["src"], base_url="../" * url.count("/"), lookup=lookup)


def _fence(handler):
    def format_(source, language, css_class, options, md, **kwargs):
        opts = yaml.safe_load(source) if source.strip() else {}
        opts = opts if isinstance(opts, dict) else ({} if opts is None else {"arg": opts})
        return handler(opts, context())
    return format_


def on_config(config):
    fences = [{"name": n, "class": n, "format": _fence(h)} for n, h in
              (("instrument", instrument_fence), ("reading-lines", metro.render_fence), ("robot", robot.render_fence))]
    config.mdx_configs.setdefault("pymdownx.superfences", {})["custom_fences"] = fences
    add_assets(config)
    return config


def on_files(files, config):
    for uri, source in assets.site_assets():  # the fonts, as the plugin publishes them
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, abs_src_path=str(source)))
    return files


def on_page_markdown(markdown, page, **kwargs):
    _current["url"], _current["src"] = page.url, page.file.src_uri
    return markdown


def on_page_content(html, page, **kwargs):
    html, extra, warnings = decorate_page(html, root=ROOT, page_path=page.file.src_uri)
    page.meta.update(extra)
    for warning in warnings:
        log.warning(warning)
    return html
