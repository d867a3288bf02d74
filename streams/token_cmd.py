"""``jackpot token add --file F --name N --role R``: a new API token, printed once, stored hashed.

The token goes to stdout alone (so ``TOKEN=$(jackpot token add ...)`` works) and is never written
anywhere else; lose it and add a new one with ``--replace``. What was done goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.errors import ConfigError
from streams.tokens import ROLES, add_token


def add_parser(sub: Any) -> None:
    """Register ``jackpot token`` and its ``add`` action."""
    parser = sub.add_parser("token", help="manage HTTP API tokens (stored hashed)")
    actions = parser.add_subparsers(dest="token_command", required=True)
    add = actions.add_parser("add", help="create a token, print it once, store only its hash")
    add.add_argument(
        "--file", required=True, type=Path, help="tokens file (JSON), e.g. var/tokens.json"
    )
    add.add_argument(
        "--name", required=True, help="who holds it; recorded as `by` of their actions"
    )
    add.add_argument("--role", required=True, choices=ROLES, help="what it may call")
    add.add_argument("--replace", action="store_true", help="revoke and replace this name's token")
    add.set_defaults(handler=handle_add)


def handle_add(args: argparse.Namespace) -> int:
    """Print the new token; exit 2 if the file or the name is refused."""
    try:
        token = add_token(args.file, args.name, args.role, replace=args.replace)
    except ConfigError as exc:
        print(f"jackpot token add: {exc}", file=sys.stderr)
        return 2
    print(token)
    print(
        f"jackpot token add: {args.role} token for {args.name!r} stored (hashed) in {args.file}; "
        "it is shown only this once",
        file=sys.stderr,
    )
    return 0
