"""The ``jackpot`` command: ``jackpot replay --config FLOOR.toml EVENTS.jsonl`` and friends.

Each subcommand lives in its own module; this one only parses arguments and dispatches, so adding
a subcommand never touches the others.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from streams.cli.common import OneLineParser, run_handler


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand (imported here, not at the top, so that
    ``python -m streams.cli.serve`` runs a module not already imported by its package)."""
    from streams.cli import ingest, kafka, serve, simulate, token  # noqa: PLC0415
    from streams.cli import replay as replay_cmd  # noqa: PLC0415
    from streams.reconcile import service  # noqa: PLC0415

    parser = OneLineParser(prog="jackpot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    replay_cmd.add_parser(sub)
    ingest.add_parser(sub)
    simulate.add_parser(sub)
    serve.add_parser(sub)
    token.add_parser(sub)
    service.add_parser(sub)
    kafka.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code is 0 on success, 2 on bad usage or configuration
    (told in one line, never a traceback: `streams.cli.common`)."""
    return run_handler(build_parser().parse_args(argv))
