"""Build a site for the browser tests: the theme's fixture site, or the real project."""

from __future__ import annotations

import os
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


def build_fixture_site(out: Path) -> Path:
    """The theme on fixture records, with site_hooks.py in place of the project's plugin."""
    config = yaml.safe_load((FIXTURES / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(FIXTURES / "docs")
    config["site_dir"] = str(out / "site")
    config["theme"]["custom_dir"] = str(ROOT / "theme")
    config["hooks"] = [str(HERE / "site_hooks.py")]
    cfg = out / "mkdocs.yml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    _run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(cfg)])
    return out / "site"


def build_project_site(out: Path) -> Path:
    """The real project (its plugin, its committed proof records) built into ``out``."""
    _run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out / "site")])
    return out / "site"


def project_ready() -> bool:
    return (ROOT / "mkdocs.yml").is_file() and (ROOT / "build_hooks" / "plugin.py").is_file()


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, cwd=str(ROOT), env=_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"site build failed ({' '.join(cmd)}):\n{done.stdout}\n{done.stderr}")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ldr-theme-site")
    target.mkdir(parents=True, exist_ok=True)
    print(build_fixture_site(target))
