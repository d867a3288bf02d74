"""The ``jackpot`` command: ``jackpot replay --config FLOOR.toml EVENTS.jsonl`` and friends.

Each subcommand lives in its own module; this one only parses arguments and dispatches, so adding
a subcommand never touches the others. Nothing imports this package (`lint-imports`).

The base install (``pip install table-jackpot-controller``) runs ``replay``, ``simulate``,
``ingest``, ``reconcile`` and ``token``; ``serve`` and ``kafka`` need the ``edge`` extra. A
command whose extra is missing is still listed, and says in one line what to install.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from streams import compiled, native
from streams.cli.common import OneLineParser, run_handler

#: Every subcommand: its module, and the extra its imports need ("" for the base install).
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("replay", "streams.cli.replay", ""),
    ("ingest", "streams.cli.ingest", ""),
    ("simulate", "streams.cli.simulate", ""),
    ("serve", "streams.cli.serve", "edge"),
    ("token", "streams.cli.token", ""),
    ("reconcile", "streams.cli.reconcile", ""),
    ("kafka", "streams.cli.kafka", "edge"),
    ("verify", "streams.cli.verify", ""),
    ("mystery-audit", "streams.cli.mystery_audit", ""),
)
PACKAGE = "table-jackpot-controller"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = OneLineParser(prog="jackpot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action=_Version, nargs=0, help="version and fast path")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module, extra in COMMANDS:
        try:
            importlib.import_module(module).add_parser(sub)
        except ModuleNotFoundError as exc:
            if not extra:
                raise
            _add_missing(sub, name, extra, exc.name or str(exc))
    return parser


class _Version(argparse.Action):
    """``jackpot --version``: the package's version and whether the fast path runs its mypyc
    build (`streams.compiled`) and its native hot path (`streams.native`), found out only when
    asked."""

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kw: object) -> None:
        try:
            version = metadata.version(PACKAGE)
        except metadata.PackageNotFoundError:
            version = "unknown"
        parser.exit(0, f"jackpot {version}; fast path {compiled.mode()}; {native.mode()}\n")


def _add_missing(sub: Any, name: str, extra: str, missing: str) -> None:
    """A stand-in for a command whose extra is not installed: it takes any arguments and says
    in one line what to install (exit 2), instead of a traceback at every command."""
    stand_in = sub.add_parser(name, help=f"(needs the '{extra}' extra)", add_help=False)

    def refuse(_args: argparse.Namespace) -> int:
        print(
            f"jackpot {name}: needs the '{extra}' extra (no module {missing!r}): "
            f"pip install '{PACKAGE}[{extra}]'",
            file=sys.stderr,
        )
        return 2

    stand_in.set_defaults(handler=refuse, stand_in=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code is 0 on success, 2 on bad usage or configuration
    (told in one line, never a traceback: `streams.cli.common`)."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "stand_in", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return run_handler(args)
