"""site/shelf.py on real files: the site's file is a hard link to an entry holding exactly its
bytes, or a file written with them; nothing at the destination or in the shelf is followed or
written through, and a file system that refuses links still gets every file."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest

from build_hooks.site import shelf as shelf_module
from build_hooks.site.shelf import Shelf

BODY = b"print('the answer is 42')\n"


def entry_of(root: Path, body: bytes) -> Path:
    return root / ".cache" / "ldr" / "shelf" / hashlib.sha256(body).hexdigest()


def test_a_file_is_a_link_to_its_entry_and_one_entry_serves_every_copy(tmp_path):
    shelf = Shelf(tmp_path)
    first, second = tmp_path / "site" / "a.py", tmp_path / "site" / "deep" / "b.py"
    shelf.place(BODY, first)
    shelf.place(BODY, second)
    entry = entry_of(tmp_path, BODY)
    assert first.read_bytes() == BODY and second.read_bytes() == BODY
    assert os.path.samefile(first, entry) and os.path.samefile(second, entry)
    assert (shelf.linked, shelf.written) == (2, 0)


def test_an_entry_changed_through_a_published_file_is_written_again(tmp_path):
    shelf = Shelf(tmp_path)
    site = tmp_path / "site" / "a.py"
    shelf.place(BODY, site)
    with open(site, "r+b") as handle:  # a post-processor rewrites the published file in place
        handle.write(b"#")
    again = tmp_path / "site2" / "a.py"
    Shelf(tmp_path).place(BODY, again)
    assert again.read_bytes() == BODY and entry_of(tmp_path, BODY).read_bytes() == BODY
    assert not os.path.samefile(again, site)  # a new entry; the edited file keeps the old inode


@pytest.mark.parametrize("kind", ["fifo", "symlink_out", "folder", "flipped", "short"])
def test_a_broken_entry_is_replaced_never_followed(tmp_path, kind):
    entry = entry_of(tmp_path, BODY)
    entry.parent.mkdir(parents=True)
    outside = tmp_path / "outside.py"
    outside.write_bytes(BODY)  # the same bytes: a link to it would pass a content check
    if kind == "fifo":
        os.mkfifo(entry)  # opened for reading, it would wait for a writer forever
    elif kind == "symlink_out":
        entry.symlink_to(outside)
    elif kind == "folder":
        entry.mkdir()
    elif kind == "flipped":
        entry.write_bytes(bytes(b ^ 1 for b in BODY))
    else:
        entry.write_bytes(BODY[:5])
    site = tmp_path / "site" / "a.py"
    Shelf(tmp_path).place(BODY, site)
    assert site.read_bytes() == BODY
    assert not os.path.samefile(site, outside) and outside.stat().st_nlink == 1
    assert entry.is_file() and not entry.is_symlink() and entry.read_bytes() == BODY


def test_a_symlink_at_the_destination_is_replaced_not_written_through(tmp_path):
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"keep me\n")
    site = tmp_path / "site" / "a.py"
    site.parent.mkdir()
    site.symlink_to(outside)
    Shelf(tmp_path).place(BODY, site)
    assert outside.read_bytes() == b"keep me\n"
    assert not site.is_symlink() and site.read_bytes() == BODY


def test_a_file_system_without_links_gets_written_files(tmp_path, monkeypatch):
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(shelf_module.os, "link", refuse)
    shelf = Shelf(tmp_path)
    for index in range(3):
        shelf.place(BODY + bytes([65 + index]), tmp_path / "site" / f"{index}.py")
    assert [(tmp_path / "site" / f"{index}.py").read_bytes() for index in range(3)] == \
        [BODY + b"A", BODY + b"B", BODY + b"C"]
    assert len(calls) == 1 and (shelf.linked, shelf.written) == (0, 3)  # one refusal ends the trying
    assert all((tmp_path / "site" / f"{index}.py").stat().st_nlink == 1 for index in range(3))


def test_an_unwritable_cache_still_publishes(tmp_path):
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "ldr").write_text("not a folder")
    site = tmp_path / "site" / "a.py"
    Shelf(tmp_path).place(BODY, site)
    assert site.read_bytes() == BODY and site.stat().st_nlink == 1


def test_prune_removes_what_this_build_did_not_link(tmp_path):
    Shelf(tmp_path).place(b"old\n", tmp_path / "one" / "a.py")
    shelf = Shelf(tmp_path)
    shelf.place(BODY, tmp_path / "two" / "a.py")
    folder = entry_of(tmp_path, BODY).parent
    (folder / ".x.tmp").write_bytes(b"another build's write under way")
    assert shelf.prune() == 1
    assert sorted(path.name for path in folder.iterdir()) == sorted([".x.tmp", entry_of(tmp_path, BODY).name])
    assert (tmp_path / "one" / "a.py").read_bytes() == b"old\n"  # a published file outlives its entry


def test_a_shelf_told_not_to_link_writes_and_leaves_the_shelf_alone(tmp_path):
    Shelf(tmp_path).place(b"kept\n", tmp_path / "one" / "a.py")
    off = Shelf(tmp_path, enabled=False)
    off.place(BODY, tmp_path / "two" / "a.py")
    assert (tmp_path / "two" / "a.py").stat().st_nlink == 1
    assert off.prune() == 0 and entry_of(tmp_path, b"kept\n").is_file()
    assert not entry_of(tmp_path, BODY).exists()
