"""Errors the machinery raises for bad input: each names the file, the element and the fix."""

from __future__ import annotations


class LdrError(Exception):
    """Base class: a problem the author must fix; the message says where and how."""


class DirectiveError(LdrError):
    """A directive in a chapter is wrong (unknown proof, unknown key, bad option...)."""


class DrawingError(LdrError):
    """An Excalidraw scene cannot be rendered (invalid JSON, unknown element, ...)."""


class PinError(LdrError):
    """The interpreter's torch is not the version pinned in pyproject.toml."""


class StoreError(LdrError):
    """A result record cannot be read or written."""
