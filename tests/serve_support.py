"""A real `mkdocs serve` on a free loopback port, for tests/test_serve.py and bench/bench_serve.py.

The server runs in its own session, so that :meth:`Server.stop` can send SIGINT to its whole
process group as a terminal's Ctrl-C does (the proof host is in that group; the proofs it
forks are not: each makes its own group).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PIN_LINE = next(line for line in (REPO / "pyproject.toml").read_text().splitlines()
                if line.strip().startswith('"torch=='))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_project(root: Path, plugins: tuple[str, ...] = ("ldr",), site_url: str = "http://127.0.0.1/") -> Path:
    """An empty project: pyproject with the pin, mkdocs.yml (material theme), proofs/, docs/."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "proofs").mkdir(exist_ok=True)
    (root / "docs").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "t"\nversion = "0"\ndependencies = [\n    {PIN_LINE}\n]\n')
    listed = "".join(f"  - {name}\n" for name in plugins) if plugins else ""
    (root / "mkdocs.yml").write_text(
        f"site_name: Test\nsite_url: {site_url}\ntheme:\n  name: material\n  font: false\n"
        + (f"plugins:\n{listed}" if plugins else "plugins: []\n")
        + "markdown_extensions:\n  - attr_list\n  - pymdownx.superfences\n")
    return root


def write_proof(root: Path, name: str, body: str, doc: str = "A test proof.\n\nIt proves a point.") -> Path:
    path = root / "proofs" / f"{name}.py"
    path.write_text(f'"""{doc}"""\n' + textwrap.dedent(body))
    return path


def write_page(root: Path, name: str, text: str) -> Path:
    path = root / "docs" / name
    path.write_text(textwrap.dedent(text))
    return path


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (a container's init may not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


class Server:
    def __init__(self, root: Path, port: int | None = None):
        self.root = Path(root)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}/"
        self.log = tempfile.NamedTemporaryFile(prefix="mkdocs-serve-", suffix=".log", delete=False)
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{self.port}"],
            cwd=self.root, env=env, stdout=self.log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)

    # -- requests -------------------------------------------------------------------
    def get(self, path: str = "", timeout: float = 60.0) -> tuple[int, str, float]:
        """(status, body, seconds) of one GET; status 0 when nothing answers."""
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(self.base + path.lstrip("/"), timeout=timeout) as reply:
                body = reply.read().decode("utf-8", "replace")
                return reply.status, body, time.perf_counter() - started
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode("utf-8", "replace"), time.perf_counter() - started
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return 0, "", time.perf_counter() - started

    def wait_for(self, path: str, predicate, timeout: float = 60.0, every: float = 0.02) -> str:
        """Poll ``path`` until ``predicate(body)``; a hang guard, not a timing assertion."""
        deadline = time.monotonic() + timeout
        body = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"mkdocs serve exited ({self.proc.returncode}):\n{self.output()}")
            status, body, _ = self.get(path, timeout=max(1.0, deadline - time.monotonic()))
            if status == 200 and predicate(body):
                return body
            time.sleep(every)
        raise AssertionError(f"{path!r} never matched within {timeout:.0f} s; last body tail:\n"
                             f"{body[-1500:]}\nserver log:\n{self.output()[-4000:]}")

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    # -- lifecycle ------------------------------------------------------------------
    def stop(self, timeout: float = 30.0) -> int:
        """Ctrl-C to the server's process group; kill what is left after ``timeout``."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
        return self.proc.returncode

    def cleanup(self) -> None:
        self.stop()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass
