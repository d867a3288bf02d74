"""``jackpot kafka migrate-changelog``: move a deployment's state to the shared changelog.

::

    jackpot kafka migrate-changelog --prefix floor1                # copy and check; keep the old
    jackpot kafka migrate-changelog --prefix floor1 --delete-old   # then delete the old two

For a deployment provisioned before the workers kept both lanes' state in one changelog (it has
``<p>-controller-rounds-changelog`` and ``-meters-changelog``). Stop every worker first: the
command refuses while the workers' group has members. How and why: `streams.scaleout.migrate`.
Exit 0 when done (or nothing to move), 2 with the reason otherwise; nothing is deleted unless the
copy read back equal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.model.errors import JackpotError
from streams.adapters.kafka.security import activate_from, add_security_arguments
from streams.adapters.kafka.settings import default_bootstrap
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout.migrate import Migration, migrate

PROG = "jackpot kafka migrate-changelog"


def add_parser(kafka: Any) -> None:
    """Register ``jackpot kafka migrate-changelog`` on the ``kafka`` subparsers."""
    parser = kafka.add_parser(
        "migrate-changelog", help="move the state of the two old changelogs into the shared one"
    )
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    parser.add_argument(
        "--delete-old", action="store_true", help="delete the old changelogs once the copy checks"
    )
    add_security_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Migrate and say what was done; 2 with the reason on any refusal or failure."""
    names = TopicNames(args.prefix)
    try:
        activate_from(args)
        done = migrate(args.bootstrap, names, delete_old=args.delete_old)
    except JackpotError as exc:  # AdapterError, StoreUnavailable, ConfigError
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    print(report(names, done))
    return 0


def report(names: TopicNames, done: Migration) -> str:
    """What the run did, one line each."""
    if not done.copied:
        return f"{PROG}: {names.prefix} has no old changelogs: nothing to move"
    lines = [
        f"{PROG}: {c.source}: {c.records} record(s) and {c.marks} progress mark(s) copied to "
        f"{names.state_changelog}, read back equal"
        for c in done.copied
    ]
    if done.deleted:
        deleted = ", ".join(done.deleted)
        lines.append(f"{PROG}: deleted {deleted}; the workers now use the shared one")
    else:
        lines.append(
            f"{PROG}: the old changelogs are kept and still used until deleted "
            "(run again with --delete-old, every worker stopped)"
        )
    return "\n".join(lines)
