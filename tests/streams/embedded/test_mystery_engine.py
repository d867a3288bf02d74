"""The embedded engine's mystery levels: the draw at the edge, the seal, restart and the audit.

N.J.A.C. 13:69E-1.39B / GLI-12 mystery progressives: the hit amount is drawn at random at each
reset within [reset, must_hit_by), unknowable before the hit, and the system must recover to its
exact prior state (NJ 13:69E-1.39A: recovery), here with the same sealed trigger.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from controller.model.errors import RuleViolation
from controller.model.events import Event, MysteryArmed, MysteryRevealed, ProgressiveHit
from controller.mystery import audit, commitment_of
from streams.adapters.sqlite import SqliteLog
from streams.codec import decode
from streams.embedded.engine import EmbeddedController
from streams.embedded.mystery import load_key, seal, unseal
from tests.controller.test_mystery import MYSTERY

KEY = bytes(range(32))
SALT = "00112233445566778899aabbccddeeff"


def rounds(first: int, count: int) -> list[object]:
    """``count`` rounds at tcp-7, each one $5 wager on the mystery level, settled without a hand."""
    raws: list[object] = []
    for number in range(first, first + count):
        base = number * 10
        head = {"table_id": "tcp-7", "round_id": f"R{number}"}

        def raw(offset: int, kind: str, **fields: object) -> dict[str, object]:
            seq = base + offset  # noqa: B023 - used at once
            return {
                **head,  # noqa: B023
                "event_id": f"tcp-7:{seq}",
                "type": kind,
                "seq": seq,
                "occurred_at": f"2026-11-29T16:{seq // 60 % 60:02d}:{seq % 60:02d}Z",
                **fields,
            }

        raws += [
            raw(1, "round_opened", game="three_card_poker"),
            raw(2, "wager_placed", seat=1, wager="progressive", amount="5.00"),
            raw(3, "wagers_locked"),
            raw(4, "round_settled", dealer=["Jc", "7d", "8h"], community=[],
                seats={"1": ["2c", "5d", "9h"]}),
        ]  # fmt: skip
    return raws


def started(db: Path, key: bytes | None = KEY, snapshot_every: int = 20_000) -> EmbeddedController:
    log = SqliteLog(db)
    engine = EmbeddedController(log, log, mystery_key=key, snapshot_every=snapshot_every)
    engine.start(MYSTERY, "mystery.toml")
    return engine


def logged(db: Path) -> list[Event]:
    log = SqliteLog(db)
    try:
        return [decode(record.payload) for record in log.read()]
    finally:
        log.close()


def test_the_seal_opens_only_with_its_key_and_unaltered() -> None:
    sealed = seal(KEY, 10_337, SALT)
    commitment = commitment_of(10_337, SALT)
    assert unseal(KEY, commitment, sealed) == (10_337, SALT)
    assert "10337" not in sealed
    with pytest.raises(RuleViolation, match="wrong key"):
        unseal(bytes(32), commitment, sealed)
    version, body, tag = sealed.split(".")
    with pytest.raises(RuleViolation, match="altered"):
        unseal(KEY, commitment, f"{version}.{body}.{tag[::-1]}")


def test_the_key_file_is_made_private_once_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "mystery.key"
    key = load_key(path)
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_key(path) == key
    path.write_text("not hex\n")
    with pytest.raises(RuleViolation, match="64 hex digits"):
        load_key(path)


def test_the_engine_arms_at_activation_and_after_every_hit_and_the_log_never_shows_a_trigger(
    tmp_path: Path,
) -> None:
    db = tmp_path / "log.db"
    engine = started(db)
    outcomes = engine.submit(rounds(1, 30))  # $75.00 on a $100-$110 level: three or more hits
    assert {o.status for o in outcomes} == {"accepted"}
    events = logged(db)
    hits = [e for e in events if isinstance(e, ProgressiveHit)]
    reveals = [e for e in events if isinstance(e, MysteryRevealed)]
    armings = [e for e in events if isinstance(e, MysteryArmed)]
    assert len(hits) >= 3
    assert len(reveals) == len(hits)
    assert len(armings) == len(hits) + 1  # at activation, then after each hit
    assert all(10_000 <= h.amount_cents < 11_000 for h in hits)
    report = audit(events)
    assert report.ok
    assert len(report.pending) == 1
    raw = b"".join(r.payload for r in SqliteLog(db).read())
    for reveal in reveals:  # not in the arming's record: only in the reveal after the hit
        arming = next(a for a in armings if a.commitment == reveal.commitment)
        assert reveal.salt.encode() not in repr(arming).encode()
    pending = engine.state.meters["tcp-mystery"]
    assert pending.mystery_salt.encode() not in raw
    assert f'"{pending.mystery_trigger_cents}:'.encode() not in raw


@pytest.mark.parametrize("snapshot_every", [5, 20_000])
def test_a_restart_unseals_the_same_trigger_and_the_hit_reveals_it(
    tmp_path: Path, snapshot_every: int
) -> None:
    # NJ 13:69E-1.39A: recovery to the exact prior state, here through a snapshot or the log.
    db = tmp_path / "log.db"
    first = started(db, snapshot_every=snapshot_every)
    first.submit(rounds(1, 1))
    before = first.state.meters["tcp-mystery"]
    del first  # the process goes away without closing anything
    second = started(db, snapshot_every=snapshot_every)
    after = second.state.meters["tcp-mystery"]
    assert after.mystery_commitment == before.mystery_commitment
    assert after.mystery_trigger_cents == before.mystery_trigger_cents
    second.submit(rounds(2, 6))  # $15.00 more: past any trigger under $110.00
    reveals = [e for e in logged(db) if isinstance(e, MysteryRevealed)]
    (reveal,) = [r for r in reveals if r.commitment == before.mystery_commitment]
    assert reveal.trigger_cents == before.mystery_trigger_cents


def test_without_its_key_the_engine_refuses_a_mystery_floor(tmp_path: Path) -> None:
    log = SqliteLog(tmp_path / "fresh.db")
    engine = EmbeddedController(log, log)
    outcome = engine.start(MYSTERY, "mystery.toml")
    assert (outcome.status, "sealing key" in outcome.reason) == ("rejected", True)
    assert engine.state.config is None  # nothing activated; the refusal is recorded
    assert [type(e).__name__ for e in logged(tmp_path / "fresh.db")] == ["EventRejected"]
    db = tmp_path / "armed.db"
    started(db)
    with pytest.raises(RuleViolation, match="sealing key"):
        started(db, key=None)
    with pytest.raises(RuleViolation, match="wrong key"):
        started(db, key=bytes(32))


def test_lines_arm_after_every_hit_as_items_do(tmp_path: Path) -> None:
    """The same rounds as JSON lines (`submit_lines`: the hot lines skip asking the engine to arm
    only while the configuration has no mystery level): every hit is followed by an arming."""
    db = tmp_path / "log.db"
    engine = started(db)
    lines = [json.dumps(raw).encode() for raw in rounds(1, 30)]
    outcomes = engine.submit_lines(lines[:50]) + engine.submit_lines(lines[50:])
    assert {o.status for o in outcomes} == {"accepted"}
    events = logged(db)
    hits = [e for e in events if isinstance(e, ProgressiveHit)]
    armings = [e for e in events if isinstance(e, MysteryArmed)]
    assert len(hits) >= 3
    assert len(armings) == len(hits) + 1  # at activation, then after each hit
    assert audit(events).ok
