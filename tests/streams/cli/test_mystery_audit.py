"""``jackpot ingest`` on a floor with a mystery level, then ``jackpot mystery-audit`` by anyone.

N.J.A.C. 13:69E-1.39B / GLI-12: every mystery hit can be checked afterwards against the
commitment published before it, without the key; a log whose reveal was altered fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.cli import main, verify
from streams.embedded.engine import EmbeddedController
from streams.live.feed import LiveFeed
from tests.controller.test_mystery import MYSTERY
from tests.streams.adapters.raw_log import records, rewrite
from tests.streams.embedded.test_mystery_engine import KEY, rounds

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "pa-three-card-poker-mystery.toml"


def ingest(tmp_path: Path, count: int = 20, key: Path | None = None) -> tuple[Path, int]:
    config, events, db = tmp_path / "mystery.toml", tmp_path / "events.jsonl", tmp_path / "log.db"
    config.write_text(MYSTERY, encoding="utf-8")
    events.write_text("".join(json.dumps(raw) + "\n" for raw in rounds(1, count)))
    extra = ["--mystery-key", str(key)] if key else []
    code = main(["ingest", "--config", str(config), "--db", str(db), *extra, str(events)])
    return db, code


def test_every_reveal_of_an_ingested_floor_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, code = ingest(tmp_path)
    assert code == 0
    assert (tmp_path / "log.db.mystery-key").is_file()  # the default key, beside the log
    capsys.readouterr()
    assert main(["mystery-audit", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.count("\nok  ") + out.startswith("ok  ") >= 2
    assert out.rstrip().endswith("0 failed, 1 pending")
    assert main(["mystery-audit", "--db", str(db), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is True
    assert all(10_000 <= r["trigger_cents"] < 11_000 for r in document["reveals"])
    # The reconciliation balances a mystery level to the sub-unit and flags none of its hits.
    config = str(tmp_path / "mystery.toml")
    assert main(["reconcile", "--db", str(db), "--config", config]) == 0
    assert "tcp-mystery (balanced)" in capsys.readouterr().out
    # jackpot verify, the regulator's one check, covers the reveals too.
    assert main(["verify", "--db", str(db)]) == 0
    assert "every mystery reveal" in capsys.readouterr().out


def test_an_altered_reveal_fails_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = ingest(tmp_path)
    position, payload = next((p, v) for p, v in records(db) if b"mystery_revealed" in v)
    forged = json.loads(payload)
    forged["trigger_cents"] += 1
    rewrite(db, position, json.dumps(forged).encode())
    capsys.readouterr()
    assert main(["mystery-audit", "--db", str(db)]) == 1
    assert "FAIL" in capsys.readouterr().out
    # jackpot verify finds it twice over: the broken chain, and (read past the chain) the reveal.
    assert main(["verify", "--db", str(db)]) == 1
    log = SqliteLog(db)
    try:
        breaks = verify._mystery_reveals(log)
    finally:
        log.close()
    assert len(breaks) == 1
    assert "BREAK: mystery reveal" in breaks[0]


def test_a_wrong_key_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ingest(tmp_path, count=1)
    capsys.readouterr()
    other = tmp_path / "other.key"
    _, code = ingest(tmp_path, count=1, key=other)
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("jackpot ingest:")
    assert "wrong key" in err
    assert "\n" not in err


def test_the_example_mystery_floor_shows_its_level_and_its_hits_on_the_signs() -> None:
    # `make run CONFIG=examples/pa-three-card-poker-mystery.toml`: the $5 tables' sign.
    log = MemoryLog()
    engine = EmbeddedController(log, log, mystery_key=KEY)
    assert engine.start(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE)).status == "accepted"
    live = LiveFeed.attach(engine)
    assert live.meters_of_tables(["tcp-7", "tcp-8"]) == ["tcp-mystery"]
    engine.submit(rounds(1, 8))  # $20.00 on a $10.00 range: at least one hit
    snapshot = live.meters_snapshot(["tcp-mystery"])
    last = snapshot["last_hits"]["tcp-mystery"]  # type: ignore[index]
    assert last["share"] == "mystery"
    assert 100 <= float(last["amount"]) < 110
    assert "$5 Mystery Jackpot" in json.dumps(snapshot)
