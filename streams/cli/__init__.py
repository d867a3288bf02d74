"""The ``jackpot`` command: ``jackpot replay --config FLOOR.toml EVENTS.jsonl`` and friends.

Each subcommand lives in its own module; this one only parses arguments and dispatches, so adding
a subcommand never touches the others.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from streams.cli import ingest, kafka, serve, simulate, token, verify
from streams.cli import replay as replay_cmd
from streams.reconcile import service


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="jackpot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    replay_cmd.add_parser(sub)
    ingest.add_parser(sub)
    simulate.add_parser(sub)
    serve.add_parser(sub)
    token.add_parser(sub)
    service.add_parser(sub)
    kafka.add_parser(sub)
    verify.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code is 0 on success, 2 on bad usage or configuration."""
    args = build_parser().parse_args(argv)
    result: int = args.handler(args)
    return result
