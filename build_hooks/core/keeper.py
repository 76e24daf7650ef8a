"""The host keeper: a warm proof host (zygote.py) kept between builds, so that a build that
runs proofs does not wait for torch to import again (1.4 to 2 s with a CUDA build of torch).

A host never runs a torch op itself (it forks proofs), so once a build is done with it, it is
as good as new. Instead of closing it, the build hands it to the keeper: a small process (this
file run as a script, standard library only) that holds the host's pipes and nothing else.
The next build takes it back. Handing over moves the pipes' file descriptors over a Unix
socket (``SCM_RIGHTS``); whoever holds the host's stdin owns it, and nobody else has a copy:

* the build that takes a host holds its only stdin, so if that build dies (even by SIGKILL)
  the host sees its stdin close and ends, killing its proofs, as without the keeper;
* a build hands a host back only when it is idle, after a clean run (never after an error, a
  timeout or Ctrl-C: then the host is stopped as before);
* a host is taken only by a build whose *key* is the one it was started under: the proof
  interpreter (path and file stamp), this package's host code, the mode and the whole
  environment. Its torch files' stamps are checked again when it is taken, so a torch
  upgraded since is never used (the build starts a fresh host).

The keeper holds at most one host per key, drops each one ``keep`` seconds after it was
handed in (closing its stdin ends it), and exits when it holds none. Its socket lies in a
folder of this user's own (mode 0700, checked), and each side checks the other's user id
(``SO_PEERCRED``). ``LDR_KEEP_HOST`` sets ``keep`` in seconds (0: off; the default is 600,
and 0 where the ``CI`` variable is set); ``LDR_KEEPER_DIR`` moves the folder.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import tempfile
import time

DEFAULT_KEEP = 600.0
MAX_FDS = 4


def keep_seconds() -> float:
    """How long a handed-in host is kept (0: not at all)."""
    raw = os.environ.get("LDR_KEEP_HOST")
    if raw is None:
        return 0.0 if os.environ.get("CI") else DEFAULT_KEEP
    try:
        return max(0.0, float(raw))
    except ValueError:
        return 0.0


def folder() -> str:
    """This user's keeper folder, made private; raises OSError when it is not ours alone."""
    path = os.environ.get("LDR_KEEPER_DIR") or os.path.join(tempfile.gettempdir(), f"ldr-keeper-{os.getuid()}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if info.st_uid != os.getuid() or info.st_mode & 0o077 or not os.path.isdir(path) or os.path.islink(path):
        raise OSError(f"{path} is not a private folder of this user")
    return path


def _peer_is_us(sock: socket.socket) -> bool:
    if not hasattr(socket, "SO_PEERCRED"):
        return True  # off Linux the private folder is the check
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] == os.getuid()


def _send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode() + b"\n"
    socket.send_fds(sock, [data], list(fds)) if fds else sock.sendall(data)


def _receive(sock: socket.socket, timeout: float) -> tuple[dict | None, list[int]]:
    """One message and the fds that came with it; anything but a JSON object reads as None
    (and its fds are closed)."""
    sock.settimeout(timeout)
    data, fds, _, _ = socket.recv_fds(sock, 1 << 20, MAX_FDS)
    while data and not data.endswith(b"\n"):
        more = sock.recv(1 << 20)
        if not more:
            break
        data += more
    try:
        message = json.loads(data)
    except ValueError:
        message = None
    if not isinstance(message, dict):
        for fd in fds:
            os.close(fd)
        return None, []
    return message, fds


# -- the build's side -------------------------------------------------------------------
def _connect(start: bool) -> socket.socket | None:
    here = folder()
    path = os.path.join(here, "keeper.sock")
    for attempt in range(40 if start else 1):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            if _peer_is_us(sock):
                return sock
            sock.close()
            return None
        except OSError:
            sock.close()
        if start and attempt == 0:
            import subprocess

            # It forks once more and its first process exits at once (waited for here), so
            # the keeper is nobody's child: no zombie is left in a long-lived build process.
            try:
                subprocess.run([sys.executable, os.path.abspath(__file__), here], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               close_fds=True, timeout=30)
            except subprocess.SubprocessError:
                return None
        time.sleep(0.025)
    return None


def _exchange(message: dict, fds: list[int] = (), start: bool = False) -> tuple[dict | None, list[int]]:
    """Send one message to the keeper (starting one if ``start``) and read its answer: the
    answer when it says ok, and the fds it sent; (None, []) when there is no keeper or it
    refused."""
    try:
        sock = _connect(start)
        if sock is None:
            return None, []
        with sock:
            _send(sock, message, fds)
            reply, got = _receive(sock, 5.0)
    except OSError:
        return None, []
    if reply is None or not reply.get("ok"):
        for fd in got:
            os.close(fd)
        return None, []
    return reply, got


def take(key: str) -> tuple[dict, list[int]] | None:
    """A kept host for ``key``: its details and its fds (stdin, stdout, stderr), or None."""
    if not keep_seconds() or not hasattr(socket, "send_fds"):
        return None
    reply, fds = _exchange({"op": "take", "key": key})
    if reply is None or len(fds) != 3 or not isinstance(reply.get("host"), dict):
        for fd in fds:
            os.close(fd)
        return None
    return reply["host"], fds


def park(key: str, host: dict, fds: list[int]) -> bool:
    """Hand a host in (its fds are sent, not closed here); False when no keeper takes it."""
    keep = keep_seconds()
    if not keep or not hasattr(socket, "send_fds"):
        return False
    reply, _ = _exchange({"op": "park", "key": key, "host": host, "keep": keep}, fds, start=True)
    return reply is not None


def _ask(op: str) -> dict | None:
    return _exchange({"op": op})[0]


def stop() -> bool:
    """End the keeper and every host it holds; False when none runs."""
    return _ask("stop") is not None


def held() -> list[dict] | None:
    """The hosts the keeper holds (pid, torch, seconds left), or None when no keeper runs."""
    reply = _ask("list")
    return None if reply is None else list(reply.get("hosts") or [])


# -- the keeper process -------------------------------------------------------------------
def serve(path: str) -> None:
    import fcntl

    lock = os.open(os.path.join(path, "keeper.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another keeper runs
    address = os.path.join(path, "keeper.sock")
    if os.path.exists(address):
        os.unlink(address)  # a keeper that died left it; we hold the lock
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    os.chmod(address, 0o600)
    server.listen(8)
    held: dict[str, tuple[float, dict, list[int]]] = {}  # key -> (until, host, fds)
    idle_until = time.monotonic() + 5  # a keeper nobody hands a host to does not stay

    def drop(key: str) -> None:
        _, _, fds = held.pop(key)
        for fd in fds:
            os.close(fd)  # the host's stdin closes: it ends, removing its folders

    def reply(conn: socket.socket, message: dict, fds: list[int] = ()) -> None:
        try:
            _send(conn, message, fds)
        except OSError:
            pass  # the asker is gone: what it was sent is closed with our copies

    try:
        while True:
            now = time.monotonic()
            for key in [k for k, (until, _, _) in held.items() if until <= now]:
                drop(key)
            if not held and now >= idle_until:
                return
            soonest = min([until for until, _, _ in held.values()] + [idle_until])
            ready, _, _ = select.select([server], [], [], max(0.05, soonest - now))
            if not ready:
                continue
            conn, _ = server.accept()
            with conn:
                try:
                    if not _peer_is_us(conn):
                        continue
                    message, fds = _receive(conn, 2.0)
                except OSError:
                    continue
                op = (message or {}).get("op")
                key = str((message or {}).get("key"))
                if op == "stop":
                    reply(conn, {"ok": True})
                    return
                if op == "list":
                    hosts = [{"pid": host.get("pid"), "torch": (host.get("hello") or {}).get("torch"),
                              "left_s": round(until - time.monotonic(), 1)} for until, host, _ in held.values()]
                    reply(conn, {"ok": True, "hosts": hosts})
                elif op == "take" and key in held:
                    until, host, host_fds = held.pop(key)
                    reply(conn, {"ok": True, "host": host}, host_fds)
                    for fd in host_fds:
                        os.close(fd)
                elif op == "park" and len(fds) == 3 and isinstance(message.get("keep"), (int, float)):
                    if key in held:
                        drop(key)
                    keep = float(message["keep"]) or DEFAULT_KEEP
                    host = message.get("host")
                    held[key] = (time.monotonic() + keep, host if isinstance(host, dict) else {}, fds)
                    idle_until = max(idle_until, time.monotonic() + keep)
                    reply(conn, {"ok": True})
                else:
                    for fd in fds:
                        os.close(fd)
                    reply(conn, {"ok": False})
    finally:
        for key in list(held):
            drop(key)
        server.close()
        try:
            os.unlink(address)
        except OSError:
            pass


if __name__ == "__main__":
    if os.fork():
        os._exit(0)
    os.chdir("/")
    serve(sys.argv[1])
