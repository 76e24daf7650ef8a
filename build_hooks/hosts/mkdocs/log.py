"""What the MkDocs plugin says, and what it makes of its own problems.

* Every message goes through :func:`~build_hooks.core.textsafe.printable` on its way to the
  log: a proof's output, a record field or a file name quoted in a warning cannot send a
  terminal sequence to the author's terminal or the CI log.
* Every warning and error is also counted here, whatever the log level: MkDocs counts
  warnings for ``--strict`` through a log handler, so ``mkdocs build --strict -q`` (which
  drops warnings before any handler sees them) would pass a page whose claim does not hold.
  Under ``strict`` the plugin fails the build itself at the end (:meth:`PluginLog.check`),
  naming the count and each problem.
* A file the plugin cannot write (a full disk, a read-only tree, a cache of another user)
  fails the build with one error naming the path and the fix (:func:`guard_hooks`), not a
  traceback; so does a site folder MkDocs itself could not write (:func:`check_writable`).
"""

from __future__ import annotations

import functools
import os
import tempfile

from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, get_plugin_logger

from build_hooks.core.textsafe import printable
from build_hooks.core.writeerrors import explain

HOOKS = ("on_config", "on_pre_build", "on_files", "on_nav", "on_env", "on_page_markdown",
         "on_page_content", "on_post_page", "on_post_build", "on_serve", "on_shutdown")


class PluginLog:
    """The plugin's logger: messages escaped, warnings and errors counted for ``strict``."""

    def __init__(self, logger):
        self.logger = logger
        self.problems: list[str] = []

    def begin(self) -> None:
        """A build starts: nothing reported yet."""
        self.problems = []

    def debug(self, message: str) -> None:
        self.logger.debug(printable(message))

    def info(self, message: str) -> None:
        self.logger.info(printable(message))

    def warning(self, message: str) -> None:
        message = printable(message)
        self.problems.append(message)
        self.logger.warning(message)

    def error(self, message: str) -> None:
        message = printable(message)
        self.problems.append(message)
        self.logger.error(message)

    def check(self, strict: bool) -> None:
        """Under ``strict``: fail the build if the plugin reported any problem in it, whether
        or not MkDocs counted the warning (it does not under ``-q``)."""
        if not strict or not self.problems:
            return
        found, self.problems = self.problems, []
        listed = "\n".join(f"  - {problem}" for problem in found)
        raise PluginError(f"ldr: {len(found)} problem(s) in strict mode; fix each of them (or build "
                          f"without --strict):\n{listed}")


log = PluginLog(get_plugin_logger("ldr"))  # the plugin's: escapes messages, counts problems for strict


def check_writable(folder: str) -> None:
    """Fail now, with the fix, if MkDocs will not be able to write the site to ``folder``."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        named = OSError(exc.errno, exc.strerror, folder)  # the folder, not the probe file in it
        raise PluginError(f"ldr: cannot write the site: {explain(named)}") from exc


def _guarded(hook):
    @functools.wraps(hook)
    def run(*args, **kwargs):
        try:
            return hook(*args, **kwargs)
        except PluginError as exc:  # the message may quote a proof's output or a file name
            text = printable(str(exc))
            if text == str(exc):
                raise
            raise PluginError(text) from exc
        except OSError as exc:
            raise PluginError(f"ldr: {explain(exc)}") from exc

    return run


def guard_hooks(plugin_class) -> None:
    """Wrap each build hook ``plugin_class`` defines so that an OSError becomes one error
    naming the path and the fix, and an error's message has its control characters escaped."""
    for name in HOOKS:
        hook = plugin_class.__dict__.get(name)
        if isinstance(hook, CombinedEvent):  # each handler keeps its priority (wraps copies it)
            setattr(plugin_class, name, CombinedEvent(*(_guarded(method) for method in hook.methods)))
        elif hook is not None:
            setattr(plugin_class, name, _guarded(hook))
