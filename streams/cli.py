"""The ``jackpot`` command: ``jackpot replay --config FLOOR.toml EVENTS.jsonl`` and friends.

Each subcommand lives in its own module; this one only parses arguments and dispatches, so adding
a subcommand never touches the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from streams import (
    ingest_cmd,
    kafka_cmd,
    reconcile_cmd,
    replay_cmd,
    serve_cmd,
    simulate_cmd,
    token_cmd,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="jackpot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    replay_cmd.add_parser(sub)
    ingest_cmd.add_parser(sub)
    simulate_cmd.add_parser(sub)
    serve_cmd.add_parser(sub)
    token_cmd.add_parser(sub)
    reconcile_cmd.add_parser(sub)
    kafka_cmd.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code is 0 on success, 2 on bad usage or configuration."""
    args = build_parser().parse_args(argv)
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
