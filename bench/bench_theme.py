"""The theme's weight on the wire: its own CSS and JS, gzipped, against a 25 KB budget.

Everything the theme ships on top of mkdocs-material is counted file by file (each is its own
request, so the gzipped sizes add up), and so is the package's own CSS (build_hooks/assets/: cards,
figures), which every page links too; the drawing fonts are not counted (a page fetches only the
faces its figures use). Files copied into the site but never loaded by a page are listed apart.

    python bench/bench_theme.py          # print the table
    python bench/bench_theme.py --check  # also exit 1 when over budget
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THEME = ROOT / "theme"
BUDGET = 25 * 1024
LOADED = {".css", ".js"}


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


def main(argv: list[str]) -> int:
    files = [p for p in THEME.rglob("*") if p.is_file()]
    package = [p for p in (ROOT / "build_hooks" / "assets").rglob("*") if p.is_file() and p.suffix in LOADED]
    own = files
    loaded = [p for p in own if p.suffix in LOADED] + package  # the plugin links the package's CSS
    copied = [p for p in own if p.suffix not in LOADED and p.suffix != ".html"]
    total = table("theme and package CSS and JS, loaded by every page (beyond mkdocs-material's own)", rows(loaded))
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
