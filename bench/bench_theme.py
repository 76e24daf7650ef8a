"""The theme's weight on the wire: the stylesheet and the script every page loads, gzipped, against
a 25 KB budget.

What is counted is what the build ships (build_hooks/site/assets.py): the one bundle.css and the
one bundle.js it joins from the package's own files (cards, figures, the viewer) and the files
mkdocs.yml lists under theme.ldr_assets, comments left out as the build leaves them, each
gzipped as a whole (each is one request). The files that go into each bundle are listed with their
own sizes, to show where the weight comes from. The drawing fonts are not counted (a page fetches
only the faces its figures use). Theme files copied into the site but never loaded by a page are
listed apart.

    python bench/bench_theme.py          # print the table
    python bench/bench_theme.py --check  # also exit 1 when over budget
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
THEME = ROOT / "theme"
BUDGET = 25 * 1024
LOADED = {".css", ".js"}


class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml without running its !ENV and !!python tags (they become None)."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def rows(paths: list[Path]) -> list[tuple[str, int, int]]:
    return [(str(p.relative_to(ROOT)), p.stat().st_size, gz(p.read_bytes())) for p in sorted(paths)]


def table(title: str, items: list[tuple[str, int, int]]) -> int:
    print(f"\n{title}")
    if not items:
        print("  (none)")
        return 0
    for name, raw, packed in items:
        print(f"  {name:<48} {raw:>9,} B  {packed:>8,} B gz")
    total = sum(p for _, _, p in items)
    print(f"  {'total':<48} {sum(r for _, r, _ in items):>9,} B  {total:>8,} B gz")
    return total


def shipped() -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
    """(the two bundles as the build writes them, the parts each is joined from), as
    (name, bytes, gzipped bytes)."""
    sys.path.insert(0, str(ROOT))
    from build_hooks.site import assets

    cfg = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    theme = cfg.get("theme") or {}
    theme_dir = ROOT / theme["custom_dir"] if theme.get("custom_dir") else None
    listed = list(theme.get(assets.OPTION) or [])
    bundles = [(uri, len(data), gz(data)) for uri, data in assets.bundles(theme_dir, listed)]
    parts: list[tuple[str, int, int]] = []
    for _, data in assets.bundles(theme_dir, listed):
        for chunk in re.split(r"(?m)^(?=/\* \S+ \*/$)", data.decode()):
            head = re.match(r"/\* (\S+) \*/", chunk)
            if head:
                parts.append((f"  {head.group(1)}", len(chunk.encode()), gz(chunk.encode())))
    return bundles, parts


def main(argv: list[str]) -> int:
    bundles, parts = shipped()
    total = table("what every page loads beyond mkdocs-material's own: the two bundles, as shipped", bundles)
    table("what each bundle is joined from (each part gzipped alone: they add up to more)", parts)
    files = [p for p in THEME.rglob("*") if p.is_file()]
    copied = [p for p in files if p.suffix not in LOADED and p.suffix != ".html"]
    table("copied into the site but never requested by a page", rows(copied))
    material = _material_weight()
    if material:
        print(f"\nfor scale: mkdocs-material's own main CSS and JS bundle weigh {material / 1024:.1f} KB gzipped")
    state = "within" if total <= BUDGET else "OVER"
    print(f"\ntheme weight {total / 1024:.1f} KB gzipped: {state} the {BUDGET // 1024} KB budget "
          f"({(BUDGET - total) / 1024:+.1f} KB left)")
    return 1 if "--check" in argv and total > BUDGET else 0


def _material_weight() -> int:
    try:
        import material
    except ImportError:
        return 0
    assets = Path(material.__file__).parent / "templates" / "assets"
    picks = (list((assets / "stylesheets").glob("main.*.min.css"))
             + list((assets / "javascripts").glob("bundle.*.min.js")))
    return sum(gz(p.read_bytes()) for p in picks)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
