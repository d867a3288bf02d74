"""``jackpot token add --file F --name N --role R [--tables T1,T2]``: a new API token, printed once,
stored hashed.

The token goes to stdout alone (so ``TOKEN=$(jackpot token add ...)`` works) and is never written
anywhere else; lose it and add a new one with ``--replace``. What was done goes to stderr.
``--tables`` binds a table_device token to the tables it serves (comma-separated, or the option
repeated): the recommended practice, so a stolen or misconfigured device token cannot post for
another table (`streams.http.tokens`). With any other role it is refused (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.model.errors import ConfigError
from streams.http.tokens import ROLES, add_token


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
    add.add_argument(
        "--tables",
        action="append",
        metavar="T1,T2",
        help="table_device only: the tables it may post for (recommended; repeatable)",
    )
    add.add_argument("--replace", action="store_true", help="revoke and replace this name's token")
    add.set_defaults(handler=handle_add)


def handle_add(args: argparse.Namespace) -> int:
    """Print the new token; exit 2 if the file, the name or the tables are refused."""
    tables = _tables(args.tables)
    try:
        token = add_token(args.file, args.name, args.role, replace=args.replace, tables=tables)
    except ConfigError as exc:
        print(f"jackpot token add: {exc}", file=sys.stderr)
        return 2
    print(token)
    if tables is not None:
        scope = f", bound to {', '.join(sorted(set(tables)))},"
    elif args.role == "table_device":
        scope = ", not bound to tables (it may post for any table; --tables binds it),"
    else:
        scope = ""
    print(
        f"jackpot token add: {args.role} token for {args.name!r}{scope} stored (hashed) in "
        f"{args.file}; it is shown only this once",
        file=sys.stderr,
    )
    return 0


def _tables(values: list[str] | None) -> list[str] | None:
    """Every ``--tables`` value split at commas (an empty piece is left for the check to refuse)."""
    if values is None:
        return None
    return [piece.strip() for value in values for piece in value.split(",")]
