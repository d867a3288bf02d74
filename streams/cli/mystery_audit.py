"""``jackpot mystery-audit --db LOG`` (or ``--kafka-prefix P``, the Kafka engine's events topic):
check every mystery level's reveal in a log, by anyone.

For each hit of a must-hit-by level the log holds, before it, the arming's commitment (SHA-256 of
trigger and salt) and, with the hit, the revealed trigger and salt. This command recomputes each
commitment, checks the trigger was within the [reset, must_hit_by) fixed at the arming and that
the hit paid exactly the trigger from a meter that had reached it (`controller.mystery.audit`).
It needs no key: armings not yet hit are listed by commitment only. Exit 0 when every reveal
holds, 1 when any does not, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.model.errors import StoreUnavailable
from controller.model.money import format_cents
from controller.mystery import MysteryAudit, audit
from streams.adapters.sqlite import SqliteLog
from streams.cli.common import fail
from streams.codec import decode


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "mystery-audit", help="verify every mystery reveal against its commitment and range"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", type=Path, help="the event log (SQLite file)")
    source.add_argument(
        "--kafka-prefix",
        help="the Kafka engine's events topic of this prefix (read_committed, each dedupe id once)",
    )
    parser.add_argument(
        "--bootstrap", default=None, help="Kafka bootstrap servers (default KAFKA_BOOTSTRAP)"
    )
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Audit the log; print a line per reveal (or JSON) and exit 1 if any fails."""
    if args.kafka_prefix:
        try:
            report = _kafka_audit(args.bootstrap, args.kafka_prefix)
        except StoreUnavailable as exc:
            return fail("jackpot mystery-audit", str(exc))
    else:
        if not args.db.is_file():
            return fail("jackpot mystery-audit", f"{args.db}: no such log file")
        log = SqliteLog(args.db)
        try:
            report = audit(decode(record.payload) for record in log.read())
        finally:
            log.close()
    text = json.dumps(as_json(report), indent=2) if args.format == "json" else as_text(report)
    sys.stdout.write(text + "\n")
    return 0 if report.ok else 1


def _kafka_audit(bootstrap: str | None, prefix: str) -> MysteryAudit:
    """The Kafka engine's events topic audited (`streams.scaleout.mystery_audit.audit_topic`)."""
    from streams.adapters.kafka.settings import default_bootstrap  # noqa: PLC0415 (Kafka only here)
    from streams.adapters.kafka.topics import TopicNames  # noqa: PLC0415
    from streams.scaleout.mystery_audit import audit_topic  # noqa: PLC0415

    return audit_topic(bootstrap or default_bootstrap(), TopicNames(prefix))


def as_json(report: MysteryAudit) -> dict[str, object]:
    """The audit as a JSON document."""
    return {
        "ok": report.ok,
        "reveals": [
            {
                "meter_id": r.meter_id,
                "hit_id": r.hit_id,
                "trigger_cents": r.trigger_cents,
                "reset_cents": r.reset_cents,
                "must_hit_by_cents": r.must_hit_by_cents,
                "problems": list(r.problems),
            }
            for r in report.reveals
        ],
        "pending": [{"meter_id": m, "commitment": c} for m, c in report.pending],
    }


def as_text(report: MysteryAudit) -> str:
    """One line per reveal, then the pending armings and the verdict."""
    lines = [
        f"{'FAIL' if r.problems else 'ok  '} {r.meter_id} {r.hit_id} hit at "
        f"{format_cents(r.trigger_cents)} in [{format_cents(r.reset_cents)}, "
        f"{format_cents(r.must_hit_by_cents)})"
        + (f": {'; '.join(r.problems)}" if r.problems else "")
        for r in report.reveals
    ]
    lines += [
        f"armed {meter} (commitment {commitment}), not yet hit"
        for meter, commitment in report.pending
    ]
    failed = sum(1 for r in report.reveals if r.problems)
    lines.append(f"{len(report.reveals)} reveals, {failed} failed, {len(report.pending)} pending")
    return "\n".join(lines)
