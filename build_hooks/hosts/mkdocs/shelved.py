"""The package's files in a MkDocs site, published by hard link (site/shelf.py).

MkDocs copies a file into the site through :meth:`File.copy_file`; a :class:`ShelvedFile`
hands its bytes to the build's :class:`Shelf` instead, which links the site's file to the
shelf's entry for those bytes, or writes it where no link can be made.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import read_bytes
from build_hooks.site.shelf import Shelf


class ShelvedFile(File):
    shelf: Shelf

    @classmethod
    def of(cls, config, uri: str, source: Path | bytes, shelf: Shelf) -> ShelvedFile:
        """The site's file at ``uri`` with these bytes, or this file's (read when it is published)."""
        made = (cls.generated(config, uri, content=source) if isinstance(source, bytes)
                else cls.generated(config, uri, abs_src_path=str(source)))
        assert isinstance(made, ShelvedFile)  # File.generated makes an instance of cls
        made.shelf = shelf
        return made

    def copy_file(self, dirty: bool = False) -> None:
        if not self.shelf.wanted:  # link_files: false: as MkDocs copies any file
            return super().copy_file(dirty)
        if dirty and not self.is_modified():
            return
        body = self._content
        try:
            if body is None:
                body = read_bytes(Path(self.abs_src_path or ""))
        except LdrError as exc:  # replaced by a FIFO or a huge file since the file list was made
            raise PluginError(str(exc)) from exc
        self.shelf.place(body.encode("utf-8") if isinstance(body, str) else body, Path(self.abs_dest_path))
