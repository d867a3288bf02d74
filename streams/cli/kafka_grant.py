"""``jackpot kafka grant``: give a SASL user a role on one deployment, or list the ACLs about it.

::

    jackpot kafka grant --prefix floor1 --role worker --principal User:floor1-worker
    jackpot kafka grant --prefix floor1 --list

Run it as the broker's admin (a super user); the roles are in `streams.adapters.kafka.acls`.
Granting is
idempotent: what is already there is reported, not added twice. Any refusal (a broker without an
authorizer, a user who may not grant) ends with the reason and exit code 2, like ``provision``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.model.errors import JackpotError
from streams.adapters.kafka.acls import ROLES, grant, list_acls, role_grants
from streams.adapters.kafka.security import activate_from, add_security_arguments
from streams.adapters.kafka.settings import default_bootstrap
from streams.adapters.kafka.topics import TopicNames

PROG = "jackpot kafka grant"


def add_parser(kafka: Any) -> None:
    """Register ``jackpot kafka grant`` on the ``kafka`` subparsers."""
    parser = kafka.add_parser("grant", help="ACLs: give a user a role on a prefix, or --list")
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    parser.add_argument("--role", choices=ROLES, help="what the principal may do")
    parser.add_argument("--principal", help="User:NAME, NAME being the SASL username")
    parser.add_argument("--list", action="store_true", help="show the prefix's ACLs instead")
    add_security_arguments(parser)
    parser.set_defaults(handler=handle_grant)


def handle_grant(args: argparse.Namespace) -> int:
    """Grant a role (printing each binding added) or list the prefix's bindings; 2 on errors."""
    if args.list == bool(args.role or args.principal) or (
        not args.list and not (args.role and args.principal)
    ):
        print(f"{PROG}: give --role and --principal, or --list alone", file=sys.stderr)
        return 2
    names = TopicNames(args.prefix)
    try:
        activate_from(args)
        if args.list:
            _print_list(args.bootstrap, names)
        else:
            _grant_role(args.bootstrap, names, args.role, args.principal)
    except JackpotError as exc:  # ConfigError, StoreUnavailable, AdapterError
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    return 0


def _grant_role(bootstrap: str, names: TopicNames, role: str, principal: str) -> None:
    wanted = role_grants(names, role)
    added = grant(bootstrap, principal, wanted)
    print(
        f"{PROG}: {principal} has the {role} role on {names.prefix}: "
        f"{len(added)} ACL(s) added, {len(wanted) - len(added)} already there"
    )
    for g in wanted:
        print(f"  {'+' if g in added else '='} ALLOW {g.describe()}")


def _print_list(bootstrap: str, names: TopicNames) -> None:
    rows = list_acls(bootstrap, names.prefix)
    print(f"{PROG}: {len(rows)} ACL(s) about {names.prefix} (super users need none)")
    for principal, g in rows:
        print(f"  {principal} ALLOW {g.describe()}")
