"""A MkDocs file published by hard link from a private copy (core/sitecopy.py), or copied as
MkDocs would where no link can be made."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File

from build_hooks.core.sitecopy import SiteCopies


class LinkedFile(File):
    copies: SiteCopies | None = None

    @classmethod
    def of(cls, config, uri: str, source: Path, copies: SiteCopies) -> "LinkedFile":
        file = cls.generated(config, uri, abs_src_path=str(source))
        file.copies = copies
        return file

    def copy_file(self, dirty: bool = False) -> None:
        if dirty and not self.is_modified():
            return
        if self.copies is None or not self.copies.place(Path(self.abs_src_path), self.src_uri, self.abs_dest_path):
            super().copy_file(dirty=False)


def add_published(files, config, published, copies: SiteCopies) -> None:
    """Add each ``(uri, file on disk or bytes)`` the site does not have already."""
    for uri, source in published:
        if files.get_file_from_path(uri) is None:
            if isinstance(source, bytes):
                files.append(File.generated(config, uri, content=source))
            else:
                files.append(LinkedFile.of(config, uri, source, copies))
