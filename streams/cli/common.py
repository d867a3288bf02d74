"""What every ``jackpot`` command shares: one line for a user's mistake, exit 2; progress on a
terminal.

A user who mistypes a path, hands in a broken TOML file or an unknown option must read what to
fix, not a Python traceback: `OneLineParser` answers bad arguments in one line, and
`run_handler` turns the errors a user can cause (`ConfigError`, a missing or unreadable file, a
file that is not a database, a store that cannot be reached) into one line naming the command,
with exit code 2. A bug (`InvariantViolation`, anything unexpected) still raises: it must be seen,
never dressed up as a usage error.

`Progress` reports long work (replay, ingest, reconcile) on stderr, rewritten in place, only when
stderr is a terminal: a pipe, a log file or a test reads nothing extra.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from typing import IO, NoReturn

from controller.model.errors import InvariantViolation, JackpotError

USAGE_EXIT = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose refusal is one line (argparse prints the whole usage first)."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with ``PROG: MESSAGE (see PROG --help)``."""
        self.exit(USAGE_EXIT, f"{self.prog}: {message} (see {self.prog} --help)\n")


def prog_of(args: argparse.Namespace) -> str:
    """``jackpot replay``, ``jackpot token add``, ``jackpot kafka dump``: who is speaking."""
    names = ("command", "token_command", "kafka_command")
    words = [str(getattr(args, name, "") or "") for name in names]
    return " ".join(["jackpot", *(word for word in words if word)])


def one_line(text: str) -> str:
    """A message on one line (a multi-line reason joined with "; ")."""
    return "; ".join(part.strip() for part in str(text).splitlines() if part.strip())


def user_error(exc: BaseException) -> str | None:
    """What to tell the user about ``exc`` in one line, or None when it is a bug to show."""
    match exc:
        case InvariantViolation():
            return None
        case FileNotFoundError() if exc.filename:
            return f"{exc.filename}: no such file"
        case IsADirectoryError() if exc.filename:
            return f"{exc.filename}: is a directory, not a file"
        case PermissionError() if exc.filename:
            return f"{exc.filename}: permission denied"
        case OSError():
            where = f"{exc.filename}: " if exc.filename else ""
            return f"{where}{exc.strerror or exc}"
        case UnicodeDecodeError():
            return f"a file is not UTF-8 text (byte {exc.start}: {exc.reason})"
        case sqlite3.Error():
            return f"the event log cannot be used: {exc}"
        case JackpotError():
            return str(exc)
        case _:
            return None


def run_handler(args: argparse.Namespace) -> int:
    """Run the chosen command; a user's mistake is one line on stderr and exit code 2."""
    prog = prog_of(args)
    try:
        result: int = args.handler(args)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    except (OSError, UnicodeDecodeError, sqlite3.Error, JackpotError) as exc:
        told = user_error(exc)
        if told is None:
            raise
        print(f"{prog}: {one_line(told)}", file=sys.stderr)
        return USAGE_EXIT
    return result


def fail(prog: str, message: str) -> int:
    """Print ``PROG: MESSAGE`` on stderr; the usage exit code, for ``return fail(...)``."""
    print(f"{prog}: {one_line(message)}", file=sys.stderr)
    return USAGE_EXIT


class Progress:
    """``PROG: 42% (12,345 lines)`` on stderr, rewritten in place at most every ``interval``
    seconds, and only when stderr is a terminal (``force`` for tests)."""

    def __init__(
        self,
        prog: str,
        total: int,
        unit: str = "lines",
        *,
        stream: IO[str] | None = None,
        force: bool | None = None,
        interval: float = 0.2,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._on = force if force is not None else _is_terminal(self._stream)
        self._prog, self._total, self._unit, self._interval = prog, total, unit, interval
        self._next = 0.0
        self._shown = False

    def update(self, done: int, count: int) -> None:
        """``done`` of ``total`` (bytes or records) read; ``count`` items handled so far."""
        if not self._on:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self._interval
        share = f"{100 * done // self._total}% " if self._total > 0 else ""
        self._stream.write(f"\r{self._prog}: {share}({count:,} {self._unit})\x1b[K")
        self._stream.flush()
        self._shown = True

    def done(self) -> None:
        """Clear the progress line so the summary that follows stands alone."""
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
