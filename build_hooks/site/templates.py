"""Compile a jinja environment's templates once, not on every build: jinja's own file cache.

MkDocs makes a new jinja environment for every build, with no bytecode cache, so each build
(and each `mkdocs serve` rebuild) parses and compiles the theme's forty-odd templates again
(1.8 s for mkdocs-material's; 0.06 s from this cache). :func:`attach` gives the environment jinja's
``FileSystemBytecodeCache`` under ``.cache/ldr/templates/<key>/``, where the key holds what the
compiled code depends on besides a template's source: the jinja and Python versions and the
environment's compile-time settings (delimiters, whitespace options, extensions, autoescape,
finalize). jinja keys each entry by the template's name and file and checks it against the
SHA-1 of the template's source, so an edited template compiles again.

What the stock class does not do, done here:

* an entry is read through :mod:`.safefs`: a FIFO, a folder or a symlink leading out of the
  folder is a miss, never a hang (stock jinja opens a FIFO and waits for a writer forever);
* jinja checks the template's checksum, not the compiled code's: a flipped byte inside the
  code can load as other, valid code. So each entry is sealed as every cache entry is
  (core/cache.py: a header line with the SHA-256 of its name and body), and jinja reads only
  the body of an intact one; anything else it cannot load (a torn or foreign entry, something
  that is not code) is a miss, compiled again and written over, never an exception;
* a folder that cannot be written builds without the cache.
"""

from __future__ import annotations

import contextlib
import sys
import types
from pathlib import Path

import jinja2

from build_hooks.config import cache_dir
from build_hooks.core.atomic import write_atomic
from build_hooks.core.cache import key_of, seal, unseal
from build_hooks.core.errors import LdrError
from build_hooks.core.safefs import read_bytes


def settings_digest(env: jinja2.Environment) -> str:
    """Everything besides a template's own source that its compiled code depends on."""
    def name(value: object) -> str:
        return getattr(value, "__qualname__", None) or repr(value)

    return key_of(
        jinja2.__version__, sys.version, repr(sys.implementation.cache_tag),
        env.block_start_string, env.block_end_string, env.variable_start_string,
        env.variable_end_string, env.comment_start_string, env.comment_end_string,
        repr(env.line_statement_prefix), repr(env.line_comment_prefix),
        repr((env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline,
              env.optimized, env.is_async)),
        name(env.autoescape), name(env.finalize), name(env.code_generator_class),
        ",".join(sorted(env.extensions)),
    )[:16]


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """jinja's file cache of compiled templates, reading only what it can trust to load."""

    def __init__(self, directory: Path):
        super().__init__(str(directory), "%s.cache")

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = Path(self._get_cache_filename(bucket))
        try:
            data = unseal(path.name, read_bytes(path, inside=Path(self.directory), limit="cache"))
        except (OSError, LdrError):  # missing, not a regular file inside the folder, too large
            return
        if data is None:  # torn, flipped or foreign
            return
        try:
            bucket.bytecode_from_string(data)  # checks jinja's magic and the source's checksum
        except Exception:  # noqa: BLE001 - torn or foreign: compiled again, and dump rewrites it
            bucket.reset()
        if not isinstance(bucket.code, (types.CodeType, type(None))):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = Path(self._get_cache_filename(bucket))
        with contextlib.suppress(OSError):  # a read-only checkout still builds
            write_atomic(path, seal(path.name, bucket.bytecode_to_string()))


def attach(env: jinja2.Environment, root: Path) -> jinja2.Environment:
    """Give ``env`` the project's cache of compiled templates (under ``root/.cache/ldr``)."""
    env.bytecode_cache = CompiledTemplates(cache_dir(root) / "templates" / settings_digest(env))
    return env
