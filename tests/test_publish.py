"""Publishing: the pages workflow's own gate and build steps, run here on the real project with a
project sub-path address; the site_url checks of the plugin; `mkdocs serve` without a site_url."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
import yaml
from serve_support import Server, make_project, write_page

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / ".github" / "workflows" / "pages.yml"
BASE = "https://example.org/sub/path/"
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1",
           PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def step(job: dict, needle: str) -> tuple[int, dict]:
    return next((i, s) for i, s in enumerate(job["steps"]) if needle in (s.get("run") or s.get("uses") or ""))


def test_the_workflow_gates_on_the_records_then_builds_strict_and_deploys_to_pages():
    flow = workflow()
    assert set(flow[True]) == {"push", "workflow_dispatch"}  # PyYAML reads the key `on` as True
    assert flow["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    gate, _ = step(build, "ldr check")
    pages, _ = step(build, "actions/configure-pages@")
    make, make_step = step(build, "mkdocs build --strict")
    upload, upload_step = step(build, "actions/upload-pages-artifact@")
    assert pages < make and gate < make < upload
    assert make_step["env"]["LDR_RUN"] == "false"  # the plugin reads records, never runs a proof
    assert make_step["env"]["SITE_URL"] == "${{ steps.pages.outputs.base_url }}/"
    assert "--site-dir site" in make_step["run"] and upload_step["with"]["path"] == "site"
    assert deploy["needs"] == "build" and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert step(deploy, "actions/deploy-pages@")[1]["id"] == "deployment"
    assert flow["permissions"] == {"contents": "read"}  # the build job gets no more than it needs


def run_step(root: Path, script: str, env: dict) -> subprocess.CompletedProcess:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(["bash", "-e", "-c", script], cwd=root, env=dict(ENV, PATH=path, **env),
                          capture_output=True, text=True, timeout=600)


class Links(HTMLParser):
    ATTRIBUTES = {"href", "src", "action", "poster", "data"}

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and name in self.ATTRIBUTES:
                self.found.append(value)
            elif value and name == "srcset":
                self.found.extend(part.split()[0] for part in value.split(",") if part.strip())


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    """The real project built by the workflow's own gate and build steps, for BASE."""
    root = tmp_path_factory.mktemp("pages") / "repo"
    root.mkdir()
    # Copied: proofs/ (a build writes the quotes it kept into proofs/_results/_quotes) and the two
    # files the project's root is found from (a linked mkdocs.yml resolves to this checkout, so
    # the build would write there); the folders that are only read are linked.
    shutil.copytree(REPO / "proofs", root / "proofs")
    for name in ("pyproject.toml", "mkdocs.yml"):
        shutil.copy2(REPO / name, root / name)
    for name in ("theme", "data", "drawings", "build_hooks", "docs"):
        if (REPO / name).exists():
            (root / name).symlink_to(REPO / name)
    build = workflow()["jobs"]["build"]
    gate = run_step(root, step(build, "ldr check")[1]["run"], {})
    assert gate.returncode == 0, gate.stdout + gate.stderr
    _, make = step(build, "mkdocs build --strict")
    env = {key: str(value).replace("${{ steps.pages.outputs.base_url }}", BASE.rstrip("/"))
           for key, value in make["env"].items()}
    assert env["SITE_URL"] == BASE
    built = run_step(root, make["run"], env)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "running" not in built.stderr.lower().replace("running `", "")  # no proof ran
    return root / "site"


def test_every_link_of_the_published_site_stays_under_its_sub_path(published):
    pages = sorted(published.rglob("*.html"))
    assert len(pages) > 5
    outside, missing, checked = [], [], 0
    for page in pages:
        address = urljoin(BASE, page.relative_to(published).as_posix())
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.found:
            if link.startswith(("#", "mailto:", "data:", "javascript:")):
                continue
            target = urlsplit(urljoin(address, link))
            if target.netloc != "example.org":
                if link.startswith("/") or target.hostname in ("127.0.0.1", "localhost"):
                    outside.append(f"{page.name}: {link}")
                continue  # another site (GitHub, PyTorch's sources)
            checked += 1
            if not target.path.startswith(urlsplit(BASE).path):
                outside.append(f"{page.relative_to(published)}: {link}")
                continue
            local = published / unquote(target.path[len(urlsplit(BASE).path):])
            if not (local / "index.html" if target.path.endswith("/") else local).is_file():
                missing.append(f"{page.relative_to(published)}: {link}")
    assert checked > 100
    assert not outside, outside[:20]
    assert not missing, missing[:20]
    downloads = [p for p in published.glob("proofs/*.py")]
    assert downloads and (published / "drawings").is_dir()
    for sheet in published.rglob("*.css"):  # stylesheets: no address from the site's root
        assert not re.search(r"url\(\s*['\"]?/(?!/)", sheet.read_text(encoding="utf-8")), sheet


def test_canonical_links_and_the_sitemap_name_the_published_address(published):
    home = (published / "index.html").read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="{BASE}">' in home
    locations = re.findall(r"<loc>([^<]+)</loc>", (published / "sitemap.xml").read_text(encoding="utf-8"))
    assert locations and all(loc.startswith(BASE) for loc in locations)
    for path in [*published.rglob("*.html"), *published.rglob("*.xml")]:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "127.0.0.1" not in text and "localhost:8000" not in text, path


def site(tmp_path: Path, site_url: str | None, extra: str = "") -> Path:
    root = make_project(tmp_path / "p", site_url="X")
    config = (root / "mkdocs.yml").read_text().replace("site_url: X\n", "" if site_url is None
                                                        else f"site_url: {site_url}\n")
    (root / "mkdocs.yml").write_text(config + extra)
    write_page(root, "index.md", "# Home\n\n[Next](next.md)\n")
    write_page(root, "next.md", "# Next\n")
    return root


def build(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", *args], cwd=root,
                          env=dict(ENV, **(env or {})), capture_output=True, text=True, timeout=300)


def test_a_loopback_site_url_fails_a_strict_build_and_an_unset_one_is_a_note(tmp_path):
    loopback = build(site(tmp_path / "a", "http://127.0.0.1:8000/"))
    assert loopback.returncode == 1
    assert "site_url is http://127.0.0.1:8000/, a loopback address" in loopback.stderr, loopback.stderr
    unset = build(site(tmp_path / "b", None))
    assert unset.returncode == 0, unset.stderr
    assert "INFO    -  ldr: site_url is not set: this build has no canonical links" in unset.stderr
    published = build(site(tmp_path / "c", "https://example.org/docs/"))
    assert published.returncode == 0 and "ldr: site_url" not in published.stderr, published.stderr


def test_ldr_run_false_from_the_environment_builds_from_the_records_only(tmp_path):
    root = site(tmp_path, "https://example.org/")
    config = (root / "mkdocs.yml").read_text().replace("  - ldr\n", "  - ldr:\n      run: !ENV [LDR_RUN, true]\n")
    (root / "mkdocs.yml").write_text(config)
    (root / "proofs" / "p.py").write_text('"""P.\n\nQ."""\nprint("X=1")\n')
    off = build(root, "-v", env={"LDR_RUN": "false"})
    assert off.returncode == 0, off.stderr
    assert "running 1 proof(s)" not in off.stderr and not (root / "proofs" / "_results").exists()


def test_serve_without_a_site_url_uses_its_own_address(tmp_path):
    root = site(tmp_path, None)
    server = Server(root)
    try:
        sitemap = server.wait_for("sitemap.xml", lambda body: "<loc>" in body)
        assert f"<loc>{server.base}</loc>" in sitemap  # instant navigation has its addresses
        page = server.wait_for("next/", lambda body: "Next" in body)
        assert f'<link rel="canonical" href="{server.base}next/">' in page
        server.stop()
        assert "ldr: site_url" not in server.output()  # no note, no warning: serve has its own
    finally:
        server.cleanup()
