"""Must-hit-by ("mystery") levels on the Kafka engine, on a real broker (GLI-12 mystery
progressives, as restated by N.J.A.C. 13:69E-1.39B: the hit amount is drawn at random at the reset,
lies in [reset, must_hit_by), is not knowable before the hit; a restart recovers the exact prior
state, NJ 13:69E-1.39A / NY 5320.8).

The meter processor draws each trigger from the OS's secure source, so ``jackpot replay`` of the
table events cannot know it (the reference never arms without the edge's draw). What is compared:

- the mystery level by its invariants: every hit in [reset, must_hit_by), paid exactly its
  trigger, each reveal matching the commitment logged at its arming (`controller.mystery.audit`
  over the events topic), money conserved, contributions equal to the reference's;
- every other meter and award equal to ``jackpot replay`` to the cent;
- the trigger of an armed level in no record of any topic (its salt appears nowhere);
- a SIGKILLed worker's successor unseals the same trigger from the changelog: the first hit after
  the restart reveals the commitment made before it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.config.floor import load_floor_config
from controller.model.events import MysteryArmed, MysteryRevealed, ProgressiveHit
from controller.mystery import MYSTERY_SHARE, MysteryAudit
from streams.adapters.kafka.read import read_topic
from streams.adapters.kafka.topics import TopicNames
from streams.cli.replay import replay_file
from streams.codec import decode
from streams.embedded.mystery import load_key, unseal
from streams.scaleout.dump import Fold, award_sort_key, fold_document, read_events
from streams.scaleout.ingest import ingest_file
from streams.scaleout.mystery_audit import audit_topic
from streams.scaleout.reconcile import log_of
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    REPO,
    Worker,
    check_log,
    deploy,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

CONFIG = REPO / "examples" / "pa-three-card-poker-demo.toml"  # the floor `make run` plays
MYSTERY = "tcp-mystery"
#: Seconds between the lag reads of `wait_caught_up` (its two zeros in a row are kept): at 1 s each
#: catch-up waited 2 s past the worker's last commit.
POLL = 0.2


def cli_audit(bootstrap: str, names: TopicNames) -> MysteryAudit:
    """``jackpot mystery-audit --kafka-prefix`` as a user runs it, read back as JSON, and the
    audit it prints (`streams.scaleout.mystery_audit.audit_topic`)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "streams.cli",
            "mystery-audit",
            "--kafka-prefix",
            names.prefix,
            "--bootstrap",
            bootstrap,
            "--format",
            "json",
        ],
        capture_output=True,
        check=False,
        cwd=REPO,
        text=True,
    )
    report = audit_topic(bootstrap, names)
    assert out.returncode == (0 if report.ok else 1), out.stderr
    assert json.loads(out.stdout)["pending"] == [
        {"meter_id": m, "commitment": c} for m, c in report.pending
    ]
    return report


def check_mystery(bootstrap: str, names: TopicNames, fold: Fold, events: Path) -> MysteryAudit:
    """The invariants of the mystery level, and parity of everything else (module docstring)."""
    floor = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    progressive = floor.meters[MYSTERY].progressive
    low, high = progressive.reset_cents, progressive.must_hit_by_cents
    report = cli_audit(bootstrap, names)
    assert report.ok, [r.problems for r in report.reveals if r.problems]
    hits = [a for a in fold.awards if isinstance(a, ProgressiveHit) and a.meter_id == MYSTERY]
    assert len(hits) == len(report.reveals) >= 5
    assert all(h.share == MYSTERY_SHARE and low <= h.amount_cents < high for h in hits)
    # Armed again after the last hit at the next table event's claim (none may have come yet).
    assert len(report.pending) <= 1
    for meter in fold.meters.values():
        assert meter.explained_sub() == meter.held_sub()
    document: dict[str, Any] = fold_document(floor, fold.meters, fold)
    reference: dict[str, Any] = replay_file(CONFIG, events)
    ours = {m["meter_id"]: m for m in document["meters"]}
    theirs = {m["meter_id"]: m for m in reference["meters"]}
    assert ours[MYSTERY]["contributed"] == theirs[MYSTERY]["contributed"]
    assert {k: v for k, v in ours.items() if k != MYSTERY} == {
        k: v for k, v in theirs.items() if k != MYSTERY
    }
    others = [a for a in document["awards"] if a["meter_id"] != MYSTERY]
    expected = [a for a in reference["awards"] if a["meter_id"] != MYSTERY]
    assert others == sorted(expected, key=award_sort_key)
    return report


def no_topic_shows(bootstrap: str, names: TopicNames, secret: str) -> None:
    """``secret`` in no record (key, value or header) of any topic the engine writes."""
    topics = [names.events, names.awards, names.meter_claims, names.dead_letter]
    topics += [names.state_changelog, names.liveness]
    for topic in topics:
        for message in read_topic(bootstrap, topic):
            raw = (message.value() or b"") + (message.key() or b"")
            raw += json.dumps([str(h) for h in (message.headers() or [])]).encode()
            assert secret.encode() not in raw, topic


def armed_now(bootstrap: str, names: TopicNames, key: bytes) -> tuple[str, str]:
    """(commitment, salt) of the level's pending arming, unsealed with the key as a worker does."""
    report = audit_topic(bootstrap, names)
    [(meter, commitment)] = report.pending
    assert meter == MYSTERY
    log = [decode(r.payload) for r in log_of(read_topic(bootstrap, names.events)).read()]
    [sealed] = [e.sealed for e in log if isinstance(e, MysteryArmed) and e.commitment == commitment]
    _, salt = unseal(key, commitment, sealed)
    return commitment, salt


def feed(
    bootstrap: str, names: TopicNames, folder: Path, lines: list[bytes], *, start: int, end: int
) -> int:
    """Ingest ``lines[start:end]``; the next line to send."""
    part = folder / f"part-{start}.jsonl"
    part.write_bytes(b"".join(lines[start:end]))
    ingest_file(bootstrap, names, part, resume=False)
    return min(end, len(lines))


def next_claim(lines: list[bytes], start: int) -> int:
    """The end of the next feed from ``start``: through the next line that locks wagers at a table
    playing for the mystery level (its contributions are claimed there, 649a.12(e)(3)), or the
    end. A level a hit left waiting is armed at the next claim on it (`streams.scaleout.meters`)
    and the simulated rounds claim only there (none is voided), so the lines before such a lock
    cannot end the wait for an armed moment: feeding them 10 at a time, each step a catch-up and
    a full read of the events topic, only waited (up to 277 s of the test in CI). Were a line
    missed here, the loop would merely feed past it: what the test checks does not depend on it."""
    floor = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    tables = {t.table_id for t in floor.tables.values() if MYSTERY in t.links.values()}
    assert tables, f"no table plays for {MYSTERY}"
    for number in range(start, len(lines)):
        try:
            event = json.loads(lines[number])
        except ValueError:  # one of the malformed `BAD_LINES`
            continue
        if event.get("type") == "wagers_locked" and event.get("table_id") in tables:
            return number + 1
    return len(lines)


def test_a_mystery_level_hits_in_range_reveals_its_commitments_and_survives_a_sigkill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bootstrap = require_kafka()
    key_file = tmp_path / "mystery.key"
    monkeypatch.setenv("JACKPOT_MYSTERY_KEY_FILE", str(key_file))  # every (re)started worker
    events = simulate(tmp_path, rounds=40, seed=20261203, config=CONFIG)
    lines = events.read_bytes().splitlines(keepends=True)
    names = deploy(bootstrap, table_partitions=1, config=CONFIG)
    worker = Worker(bootstrap, names, tmp_path, config=CONFIG)
    worker.start()
    try:
        sent = feed(bootstrap, names, tmp_path, lines, start=0, end=len(lines) // 2)
        wait_caught_up(worker, timeout=180, poll=POLL)
        while not audit_topic(bootstrap, names).pending:  # a hit waits for the next event
            assert sent < len(lines), "the level was never left armed at a quiet moment"
            end = next_claim(lines, sent)
            sent = feed(bootstrap, names, tmp_path, lines, start=sent, end=end)
            wait_caught_up(worker, timeout=180, poll=POLL)
        commitment, salt = armed_now(bootstrap, names, load_key(key_file))
        no_topic_shows(bootstrap, names, salt)  # sealed in the changelog: unreadable
        worker.kill()  # SIGKILL with the level armed: its trigger was in the worker's memory only
        worker.start()
        feed(bootstrap, names, tmp_path, lines, start=sent, end=len(lines))
        wait_caught_up(worker, timeout=180, poll=POLL)
    finally:
        worker.stop()
    fold = read_events(bootstrap, names)
    check_log(bootstrap, names, fold, events)
    report = check_mystery(bootstrap, names, fold, events)
    # The arming pending at the kill is revealed by the first hit after it: the successor unsealed
    # the same trigger from the changelog (and its salt is public now, in the reveal).
    log = [decode(r.payload) for r in log_of(read_topic(bootstrap, names.events)).read()]
    [reveal] = [e for e in log if isinstance(e, MysteryRevealed) and e.commitment == commitment]
    assert reveal.salt == salt
    assert reveal.hit_id in {r.hit_id for r in report.reveals if not r.problems}
