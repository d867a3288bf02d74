"""``jackpot verify --db var/jackpot.db [--snapshot-key FILE] [--quiet]``: the full check, for a
regulator or an auditor, without starting the controller.

1. The hash chain, record by record from the first to the head (`SqliteLog.verify`).
2. Every kept snapshot: its checksum, the chain hash it names, and its tag under the key
   (without ``--snapshot-key`` the tag is not checked, and a note says so).
3. The whole log refolded from nothing: every record decodes and applies, and at each kept
   snapshot's position the fold equals the snapshot's state.

Prints one line per finding and a summary; exit 0 when everything holds, 1 on any break (the
first position named), 2 on bad usage (no such file, a key file that is not a key).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.model.errors import ConfigError, JackpotError, LogTampered, StoreUnavailable
from controller.model.state import FloorState
from controller.mystery import audit
from streams.adapters.chain import load_key
from streams.adapters.sqlite import SqliteLog
from streams.codec import decode, fold_log
from streams.embedded.self_check import fold_until
from streams.embedded.snapshot import decode_snapshot


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("verify", help="check the event log's hash chain and snapshots")
    parser.add_argument("--db", type=Path, required=True, help="the event log (SQLite)")
    parser.add_argument(
        "--snapshot-key", type=Path, default=None, help="the key file snapshots are tagged with"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Run the check; 0 holds, 1 a break, 2 bad usage."""
    if not args.db.is_file():
        print(f"jackpot verify: no event log at {args.db}", file=sys.stderr)
        return 2
    try:
        key = None if args.snapshot_key is None else load_key(args.snapshot_key, create=False)
        log = SqliteLog(args.db, snapshot_key=key)
    except (ConfigError, StoreUnavailable) as exc:
        print(f"jackpot verify: {exc}", file=sys.stderr)
        return 2
    try:
        problems, head = check(log, keyed=key is not None)
    finally:
        log.close()
    for line in problems:
        print(f"jackpot verify: {line}")
    if problems:
        return 1
    print(
        f"jackpot verify: {args.db} holds: chain, snapshots, refold to position {head} "
        "and every mystery reveal"
    )
    return 0


def check(log: SqliteLog, *, keyed: bool) -> tuple[list[str], int]:
    """Every break found, in the order checked ([] when the log holds), and the head."""
    try:
        log.verify()
    except LogTampered as exc:
        return [f"BREAK at position {exc.position}: {exc}"], exc.position
    except StoreUnavailable as exc:
        return [f"BREAK: the database cannot be read: {exc}"], 0
    snapshots = log.snapshots()
    what = "checksum, tag or chain hash" if keyed else "checksum or chain hash; tag not checked"
    problems = [
        f"BREAK: snapshot at position {position} does not hold ({what})"
        for position, _, holds in snapshots
        if not holds
    ]
    problems += _refold(log, {position: blob for position, blob, _ in snapshots})
    problems += _mystery_reveals(log)
    if snapshots and not keyed:
        print(
            "jackpot verify: note: no --snapshot-key: snapshot tags not checked (their contents "
            "are still compared with the log's fold)"
        )
    return problems, log.head()


def _mystery_reveals(log: SqliteLog) -> list[str]:
    """Every mystery level's reveal against its commitment and range (`controller.mystery.audit`,
    also ``jackpot mystery-audit`` with a line per reveal): a regulator's one check covers it."""
    report = audit(decode(record.payload) for record in log.read())
    return [
        f"BREAK: mystery reveal {r.hit_id} on {r.meter_id}: {'; '.join(r.problems)}"
        for r in report.reveals
        if r.problems
    ]


def _refold(log: SqliteLog, snapshots: dict[int, bytes]) -> list[str]:
    """Fold the whole log from nothing, comparing with each snapshot at its position."""
    state, position = FloorState(), 0
    problems: list[str] = []
    for stop in sorted(snapshots):
        try:
            state, position = fold_until(log, state, position, stop)
        except (JackpotError, ValueError, KeyError, TypeError) as exc:
            return [*problems, f"BREAK: the log does not refold after position {position}: {exc}"]
        if position == stop and not _same(snapshots[stop], state):
            problems.append(f"BREAK: snapshot at position {stop} differs from the log's fold")
    try:
        fold_log(log, state, position)
    except (JackpotError, ValueError, KeyError, TypeError) as exc:
        problems.append(f"BREAK: the log does not refold after position {position}: {exc}")
    return problems


def _same(blob: bytes, state: FloorState) -> bool:
    """Whether a snapshot (either version, `streams.embedded.snapshot`) holds ``state``."""
    try:
        return decode_snapshot(blob) == state
    except (JackpotError, ValueError, KeyError, TypeError):
        return False
