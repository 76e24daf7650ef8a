"""Compile a jinja environment's templates once, not on every build.

MkDocs makes a new jinja environment for every build, with no bytecode cache, so each build
(and each `mkdocs serve` rebuild) parses and compiles the theme's forty-odd templates again:
about a quarter of a plain mkdocs-material build of a twelve-chapter site. :func:`attach` gives
the environment a cache of the compiled code:

* in the process, so that serve rebuilds read nothing;
* under ``.cache/ldr/templates/<digest>/`` for the next process, one file per template.

jinja keys each entry by the template's name and file and checks it against the SHA-1 of the
template's source, so an edited template compiles again. The folder's digest holds everything
else the compiled code depends on: the jinja and Python versions and the environment's
compile-time settings (delimiters, whitespace options, extensions, autoescape, finalize). A
torn, foreign or unreadable entry reads as a miss and is written again; writes are atomic
(temporary file, then ``os.replace``); a read-only checkout builds without the cache.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import jinja2

from .cache import key_of, write_atomic

_MEMORY: dict[tuple[str, str], tuple[str, object]] = {}  # (folder, key) -> (checksum, code)


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


class CompiledTemplates(jinja2.BytecodeCache):
    def __init__(self, directory: Path):
        self.dir = Path(directory)

    def _path(self, key: str) -> Path:
        return self.dir / f"{key}.jbc"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        hit = _MEMORY.get((str(self.dir), bucket.key))
        if hit is not None and hit[0] == bucket.checksum:
            bucket.code = hit[1]
            return
        try:
            data = self._path(bucket.key).read_bytes()
        except OSError:
            return
        try:
            bucket.bytecode_from_string(data)  # checks jinja's magic and the source's checksum
        except Exception:  # torn or foreign: jinja compiles it again, and dump rewrites it
            bucket.reset()
        if bucket.code is not None:
            _MEMORY[(str(self.dir), bucket.key)] = (bucket.checksum, bucket.code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        _MEMORY[(str(self.dir), bucket.key)] = (bucket.checksum, bucket.code)
        with contextlib.suppress(OSError):  # a read-only checkout still builds
            write_atomic(self._path(bucket.key), bucket.bytecode_to_string())

    def clear(self) -> None:
        for path in self.dir.glob("*.jbc"):
            with contextlib.suppress(OSError):
                path.unlink()
        for key in [k for k in _MEMORY if k[0] == str(self.dir)]:
            del _MEMORY[key]


def attach(env: jinja2.Environment, root: Path) -> jinja2.Environment:
    """Give ``env`` the project's cache of compiled templates (under ``root/.cache/ldr``)."""
    env.bytecode_cache = CompiledTemplates(Path(root) / ".cache" / "ldr" / "templates" / settings_digest(env))
    return env
