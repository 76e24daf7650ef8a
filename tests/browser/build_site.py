"""Build a site for the browser tests: the theme's fixture site, or the real project."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), str(HERE), env.get("PYTHONPATH")) if p)
    return env


def build_fixture_site(out: Path, site_url: str = "http://127.0.0.1:8000/") -> Path:
    """The theme on fixture records, with site_hooks.py in place of the project's plugin."""
    config = yaml.safe_load((FIXTURES / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(FIXTURES / "docs")
    config["site_dir"] = str(out / "site")
    config["theme"]["custom_dir"] = str(ROOT / "theme")
    # the theme's stylesheets and scripts, as the project lists them (joined into one of each)
    project = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    config["theme"]["ldr_assets"] = project["theme"]["ldr_assets"]
    config["hooks"] = [str(HERE / "site_hooks.py")]
    config["site_url"] = site_url
    cfg = out / "mkdocs.yml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    _run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(cfg)])
    return out / "site"


CHECK_DIR = "theme-check"
"""Where the fixture pages go inside the project's docs for the project build."""


def build_project_site(out: Path, with_docs: bool = True, site_url: str = "http://127.0.0.1:8000/") -> Path:
    """The real project: its mkdocs.yml, its ``ldr`` plugin and Markdown extension, its committed
    proof records (never re-run: ``run: false``), its docs plus the theme's fixture pages under
    ``theme-check/``. The plugin takes the project root from the config file's folder, so the
    build happens in ``out/root``, a folder of links to the project's proofs, theme and drawings.
    """
    root = out / "root"
    root.mkdir(parents=True, exist_ok=True)
    for name in ("proofs", "theme", "data", "drawings", "build_hooks", "pyproject.toml"):
        if (ROOT / name).exists() and not (root / name).exists():
            (root / name).symlink_to(ROOT / name)
    docs = root / "docs"
    shutil.rmtree(docs, ignore_errors=True)
    if with_docs and (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", docs, dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "docs", docs / CHECK_DIR, dirs_exist_ok=True)
    # pages that need the project's plugin and records (the fixture site has neither)
    shutil.copytree(FIXTURES / "project-docs", docs / CHECK_DIR, dirs_exist_ok=True)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    plugins = []
    for item in config.get("plugins") or []:
        if item == "ldr" or (isinstance(item, dict) and "ldr" in item):
            options = dict(item["ldr"] or {}) if isinstance(item, dict) else {}
            options["run"] = False
            item = {"ldr": options}
        plugins.append(item)
    config.update(plugins=plugins, docs_dir="docs", site_dir=str(out / "site"), strict=False)
    # The `watch:` call and the ldr fences are listed for Zensical; the plugin brings its own.
    config.pop("watch", None)
    config["markdown_extensions"] = [
        "pymdownx.superfences" if isinstance(item, dict) and "pymdownx.superfences" in item else item
        for item in config.get("markdown_extensions") or []]
    config.pop("nav", None)  # the fixture pages join whatever the project has
    # mkdocs-material's instant navigation reads sitemap.xml and keeps the port of site_url:
    # serve on the port the site was built for.
    config["site_url"] = site_url
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    _run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(root / "mkdocs.yml")])
    return out / "site"


class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml even where it uses !!python/name or !ENV tags (kept as plain strings)."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: loader.construct_scalar(node)
                              if isinstance(node, yaml.ScalarNode) else None)


def project_ready() -> bool:
    return (ROOT / "mkdocs.yml").is_file() and (ROOT / "build_hooks" / "plugin.py").is_file()


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, cwd=str(ROOT), env=_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"site build failed ({' '.join(cmd)}):\n{done.stdout}\n{done.stderr}")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ldr-theme-site")
    target.mkdir(parents=True, exist_ok=True)
    which = sys.argv[2] if len(sys.argv) > 2 else "fixture"
    print(build_project_site(target) if which == "project" else build_fixture_site(target))
