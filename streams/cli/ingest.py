"""``jackpot ingest``: feed a JSONL file of table events into the embedded engine's durable log.

Idempotent by ``event_id``: running it again after a crash (or twice) applies each event once, so
a device or a batch job can simply retry. Prints a one-line summary of the outcomes. The lines
are ingested under the engines' process setting (`streams.process.settled_gc`, once the engine
has started; undone after), as ``jackpot replay`` folds.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.model.errors import JackpotError
from streams.adapters.sqlite import SqliteLog
from streams.cli.common import Progress, fail
from streams.embedded.engine import EmbeddedController
from streams.embedded.mystery import key_for
from streams.process import settled_gc


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("ingest", help="ingest a JSONL file of table events into the log")
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    parser.add_argument("--db", required=True, type=Path, help="the event log (SQLite file)")
    parser.add_argument("--batch", type=int, default=500, help="events per atomic append")
    parser.add_argument("--snapshot-every", type=int, default=20_000, help="events per snapshot")
    parser.add_argument(
        "--mystery-key",
        type=Path,
        help="the mystery levels' sealing key (default <db>.mystery-key)",
    )
    parser.add_argument("events", type=Path, help="table events, one JSON object per line")
    parser.set_defaults(handler=handle)


class ConfigRefused(JackpotError):
    """The controller refused the configuration; the message is its reason."""


def open_controller(
    config: Path, db: Path, snapshot_every: int, mystery_key: Path | None = None
) -> EmbeddedController:
    """An embedded controller over ``db``, restored and with ``config`` active (`ConfigRefused`
    if the configuration is refused: no event is ingested under a configuration not in force)."""
    text = config.read_text(encoding="utf-8")
    log = SqliteLog(db)
    key = key_for(db, text, mystery_key)
    controller = EmbeddedController(log, log, snapshot_every=snapshot_every, mystery_key=key)
    started = controller.start(text, str(config))
    if started.status == "rejected":
        log.close()
        raise ConfigRefused(started.reason)
    return controller


def _batches(path: Path, size: int, progress: Progress) -> Iterator[tuple[list[bytes], list[str]]]:
    """The file's non-blank lines in batches, each with its name ("line 12") for a refusal."""
    batch: list[bytes] = []
    names: list[str] = []
    done = 0
    with path.open("rb") as lines:
        for count, line in enumerate(lines, start=1):
            done += len(line)
            progress.update(done, count)
            if not line.strip():
                continue
            batch.append(line)
            names.append(f"line {count}")
            if len(batch) >= size:
                yield batch, names
                batch, names = [], []
    if batch:
        yield batch, names


def handle(args: argparse.Namespace) -> int:
    """Ingest the file and print the outcome counts; a user's mistake is one line, exit 2."""
    prog = "jackpot ingest"
    if args.batch < 1 or args.snapshot_every < 1:
        return fail(prog, "--batch and --snapshot-every must be at least 1")
    if not args.events.is_file():
        return fail(prog, f"{args.events}: no such events file")
    if not args.db.parent.is_dir():
        return fail(prog, f"{args.db.parent}: no such directory for the event log")
    controller = open_controller(args.config, args.db, args.snapshot_every, args.mystery_key)
    counts: Counter[str] = Counter()
    progress = Progress(prog, args.events.stat().st_size)
    with settled_gc():  # a batch job, as `jackpot replay`: the collector out of its way
        for batch, names in _batches(args.events, args.batch, progress):
            # A line that is not one JSON object is dead-lettered in its place, named by its number.
            counts.update(o.status for o in controller.submit_lines(batch, names=names))
    progress.done()
    summary = ", ".join(f"{k} {counts[k]}" for k in ("accepted", "duplicate", "rejected"))
    print(f"jackpot ingest: {summary}; log position {controller.position}", file=sys.stderr)
    return 0
