"""``jackpot replay``: run a file of table events through the core and print the outcome as JSON.

The file is read line by line; each line is checked against the schema (`streams.door.validation`)
and
then decided by the core. A line that fails either is listed under "rejected" with its reason and
changes nothing; a valid heartbeat (contract v2) changes nothing either and is skipped.
Same input, same bytes out: the output has no clock, no randomness, no set order.

The core runs on its fast path (`controller.fast.Session`, proven equal to the reference by
``tests/controller/fast/``); ``--reference`` runs the readable `decide`/`evolve` instead, for
anyone who wants to see the rules as written produce the same document.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.fast import Session
from controller.floor import Command, run
from controller.model.commands import ActivateConfig
from controller.model.errors import JackpotError, RuleViolation
from controller.model.events import Event, EventRejected
from controller.model.state import FloorState
from controller.model.table_events import from_contract
from controller.model.views import awards_view, meters_view, rejected_view
from streams.cli.common import Progress, fail
from streams.door.json_lines import parse_json_line
from streams.door.validation import validate_table_event
from streams.process import settled_gc

EPOCH = "1970-01-01T00:00:00Z"


class ConfigRefused(JackpotError):
    """The core refused the configuration; the message is its reason (file, key, expectation)."""


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("replay", help="replay table events through the core; print JSON")
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    parser.add_argument("events", type=Path, help="table events, one JSON object per line")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="run the readable reference core (decide/evolve), not its proven-equal fast path",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Replay and print. A refused configuration or a missing file is one line and exit 2
    (`streams.cli.common.run_handler`); progress shows on a terminal."""
    if not args.events.is_file():  # before the configuration is read: the likelier typo
        return fail("jackpot replay", f"{args.events}: no such events file")
    progress = Progress("jackpot replay", args.events.stat().st_size)
    with settled_gc():  # the collector out of a long fold's way (streams.process)
        document = replay_file(args.config, args.events, progress, reference=args.reference)
    progress.done()
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
    return 0


def replay_file(
    config_path: Path,
    events_path: Path,
    progress: Progress | None = None,
    *,
    reference: bool = False,
) -> dict[str, object]:
    """The replay document for a configuration file and an events file."""
    state, log = replay_state(config_path, events_path, progress, reference=reference)
    return {
        "meters": meters_view(state),
        "awards": list(awards_view(log)),
        "rejected": list(rejected_view(log)),
    }


def replay_state(
    config_path: Path,
    events_path: Path,
    progress: Progress | None = None,
    *,
    reference: bool = False,
) -> tuple[FloorState, list[Event]]:
    """The replay's final state (meters to the sub-unit) and its log, before any view."""
    with events_path.open("rb") as lines:
        return replay_lines(config_path, _reporting(lines, progress), reference=reference)


def _reporting(lines: Iterable[bytes], progress: Progress | None) -> Iterator[bytes]:
    """The lines, telling ``progress`` how many bytes and lines have gone by."""
    done = 0
    for count, line in enumerate(lines, start=1):
        done += len(line)
        if progress is not None:
            progress.update(done, count)
        yield line


def replay_lines(
    config_path: Path, lines: Iterable[bytes], *, reference: bool = False
) -> tuple[FloorState, list[Event]]:
    """`replay_state` over lines already in hand (e.g. the order a service accepted them in)."""
    text = config_path.read_text(encoding="utf-8")
    activate = ActivateConfig(
        command_id="config", source=str(config_path), text=text, by="replay", occurred_at=EPOCH
    )
    log: list[Event] = []
    state, first = run([activate])
    if isinstance(first[0], EventRejected):  # its reason already names the file and the key
        raise ConfigRefused(first[0].reason)
    log.extend(first)
    if not reference:  # the fast path, proven equal (tests/controller/fast/)
        session = Session(state)
        for item in _commands(lines):
            log.extend((item,) if isinstance(item, EventRejected) else session.step(item))
        return session.state(), log
    for item in _commands(lines):
        if isinstance(item, EventRejected):
            log.append(item)
            continue
        state, produced = run([item], state)
        log.extend(produced)
    return state, log


def _commands(lines: Iterable[bytes]) -> Iterator[Command | EventRejected]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        command = parse_line(line, f"line {number}")
        if isinstance(command, EventRejected) and command.reason.startswith("line: "):
            # the door says "line:"; a file's reader says which line
            reason = f"line {number}: {command.reason.removeprefix('line: ')}"
            command = replace(command, reason=reason)
        if command is not None:
            yield command


def parse_line(line: bytes | str, fallback_id: str) -> Command | EventRejected | None:
    """A table event from one JSON line, or an `EventRejected` naming why it cannot be one.

    None for a valid heartbeat (contract v2): it only says the table was alive, which the engines
    note for playability and never log, so a capture of a device's feed replays without it.
    """
    raw: object = None
    try:
        raw = parse_json_line(line)
        checked = validate_table_event(raw)
        if checked.get("type") == "heartbeat":
            return None
        return from_contract(checked)
    except RuleViolation as exc:
        event_id = raw.get("event_id") if isinstance(raw, dict) else None
        table_id = raw.get("table_id") if isinstance(raw, dict) else None
        return EventRejected(
            event_id=event_id if isinstance(event_id, str) else fallback_id,
            table_id=table_id if isinstance(table_id, str) else "",
            event_type=str(raw.get("type")) if isinstance(raw, dict) else "",
            reason=str(exc),
            occurred_at="",
        )
