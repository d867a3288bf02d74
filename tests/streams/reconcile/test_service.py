"""``jackpot reconcile`` end to end, on a simulated floor run with every kind of money movement.

The run (seeded, so repeatable) has progressive hits, dealer-hand splits, Envy Bonuses, voided
rounds, a hit validated and paid, and two supervisor corrections. Every figure the reconciliation
prints is checked against sums the test computes itself from the raw JSON payloads in the SQLite
file (`Raw`), never through the code under test.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import shutil
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.exceptions import StarletteDeprecationWarning

from controller.config.floor import load_floor_config
from controller.model.commands import CorrectMeter, PayHit, ValidateHit
from controller.model.views import meter_view
from streams.adapters.memory import MemoryReadModel
from streams.adapters.sqlite import SqliteLog
from streams.cli import reconcile as reconcile_cli
from streams.cli.simulate import sim_tables
from streams.codec import fold_log
from streams.embedded.engine import EmbeddedController
from streams.http.reconciliation import reconcile_routes
from streams.reconcile.live import ServiceMeters
from streams.sim.floor import (
    AKQ_SPADES,
    COMMUNITY_ROYAL,
    DEALER_ROYAL,
    FIVE_OF_SIX_ROYAL,
    FloorSimulator,
    ForcedHands,
)
from tests.streams.adapters.raw_log import records, rewrite

with warnings.catch_warnings():
    # Starlette 1.x warns when only `httpx` (not `httpx2`) is installed; see http_support.py.
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

CONFIG = Path(__file__).resolve().parents[3] / "examples" / "pa-three-card-poker.toml"
SUB = 1_000_000
DAY_CUT = "2026-11-29T11:00:00+00:00"  # gaming day 2026-11-29 starts 06:00 at -05:00
DAY_ARGS = ["--day-starts", "06:00", "--utc-offset=-05:00"]  # "=": the value starts with "-"


# --- the run ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 rounds per table from 10:45Z, voids at 3%, forced jackpot hands in 10% of rounds."""
    path = tmp_path_factory.mktemp("reconcile") / "jackpot.db"
    text = CONFIG.read_text(encoding="utf-8")
    forced = ForcedHands(
        probability=0.1, deals=(AKQ_SPADES, COMMUNITY_ROYAL, DEALER_ROYAL, FIVE_OF_SIX_ROYAL)
    )
    start = datetime(2026, 11, 29, 10, 45, tzinfo=UTC)
    tables = sim_tables(load_floor_config(text, str(CONFIG)))
    sim = FloorSimulator(tables, random.Random(19), start, void_rate=0.03, forced_hands=forced)
    events = list(sim.rounds(12))
    log = SqliteLog(path)
    # The controller's clock reads each event's own time as it arrives: the log's receive times
    # (which cut gaming days, issue 15) then match the devices' times this test sums by.
    now = ["2026-11-29T10:00:00Z"]
    try:
        controller = EmbeddedController(log, log, snapshot_every=10**9, clock=lambda: now[0])
        controller.start(text, str(CONFIG))
        half = len(events) // 2
        for index, event in enumerate(events):
            now[0] = str(event["occurred_at"])
            controller.submit([event])
            if index == half - 1:
                _correct(controller, "tcp-progressive", -1_230_000, now[0])
        _correct(controller, "tcp-five-card", 2_500_000, now[0])
        hit_id = sorted(controller.state.hits)[0]
        for command, by in ((ValidateHit, "floor 3"), (PayHit, "floor 4")):  # dual control
            outcome = controller.operate(
                command(
                    command_id=f"{command.__name__}-1", hit_id=hit_id, by=by, occurred_at=now[0]
                )
            )
            assert outcome.status == "accepted", outcome.reason
    finally:
        log.close()
    return path


def _correct(controller: EmbeddedController, meter_id: str, delta: int, at: object) -> None:
    command = CorrectMeter(
        command_id=f"fix-{meter_id}",
        meter_id=meter_id,
        amount_delta_sub=delta,
        reserve_delta_sub=0,
        by="supervisor 17",
        reason=f"audit of {meter_id}",
        occurred_at=str(at),
    )
    assert controller.operate(command).status == "accepted"


# --- independent sums of the raw log --------------------------------------------------------


@dataclass
class Meter:
    """One meter's figures, summed by the test from the raw payloads."""

    amount: int = 0
    reserve: int = 0
    contributions: int = 0
    primary: int = 0
    reserve_in: int = 0
    by_table: Counter[str] = field(default_factory=Counter)
    voided: int = 0
    voided_primary: int = 0
    paid: int = 0
    reseeds: int = 0
    corrections: list[tuple[str, str, int]] = field(default_factory=list)
    awards: Counter[tuple[str, str]] = field(default_factory=Counter)
    award_cents: Counter[tuple[str, str]] = field(default_factory=Counter)
    splits: int = 0


def raw_sums(db: Path, before: str | None = None) -> dict[str, Meter]:
    """Per meter, from the payloads (only those stamped before ``before`` if given)."""
    meters: dict[str, Meter] = defaultdict(Meter)
    for _, payload in records(db):
        e = json.loads(payload)
        if before is not None and datetime.fromisoformat(
            e["occurred_at"]
        ) >= datetime.fromisoformat(before):
            break
        if "meter_id" in e:
            _add(meters[e["meter_id"]], e)
    return meters


def _add(m: Meter, e: dict[str, Any]) -> None:
    kind = e["type"]
    if kind == "meter_seeded":
        m.amount += e["amount_sub"]
    elif kind == "contribution_recorded":
        m.contributions += 1
        m.primary += e["primary_sub"]
        m.reserve_in += e["reserve_sub"]
        m.amount += e["primary_sub"]
        m.reserve += e["reserve_sub"]
        m.by_table[e["table_id"]] += 1
    elif kind == "contributions_reversed":
        m.voided += e["count"]
        m.voided_primary += e["primary_sub"]
        m.amount -= e["primary_sub"]
        m.reserve -= e["reserve_sub"]
    elif kind == "progressive_hit":
        m.paid += e["amount_cents"] * SUB
        m.reseeds += e["reseed_sub"]
        # Independently of the record's meter_after: pay, reseed, move the reserve over at 100%.
        m.amount += -e["amount_cents"] * SUB + e["reseed_sub"]
        if e["share"] == "100%":
            m.amount, m.reserve = m.amount + m.reserve, 0
        m.splits += e["on"] == "dealer" and len(e["winners"]) > 1
        _award(m, "progressive", e)
    elif kind == "meter_corrected":
        m.amount += e["amount_delta_sub"]
        m.reserve += e["reserve_delta_sub"]
        m.corrections.append((e["by"], e["reason"], e["amount_delta_sub"]))
    elif kind in {"fixed_awarded", "envy_awarded"}:
        _award(m, kind.split("_")[0], e)


def _award(m: Meter, kind: str, e: dict[str, Any]) -> None:
    m.awards[kind, e["hand"]] += 1
    m.award_cents[kind, e["hand"]] += e["amount_cents"]


def sub(text: str) -> int:
    """ "1234.56789012" as sub-units."""
    whole, _, part = text.partition(".")
    sign = -1 if whole.startswith("-") else 1
    return sign * (abs(int(whole)) * 100 * SUB + int(part.ljust(8, "0")))


def cents(text: str) -> int:
    return sub(text) // SUB


# --- running the command ---------------------------------------------------------------------


def reconcile(db: Path, *argv: str, live: Any = None) -> int:
    parser = argparse.ArgumentParser()
    reconcile_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["reconcile", "--db", str(db), *argv])
    result: int = reconcile_cli.handle(args, live)
    return result


def report(
    db: Path, capsys: pytest.CaptureFixture[str], *argv: str, live: Any = None
) -> tuple[int, dict[str, Any]]:
    code = reconcile(db, "--format", "json", *argv, live=live)
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, document


def by_meter(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["meter_id"]: m for m in document["meters"]}


# --- tests -------------------------------------------------------------------------------------


def test_the_run_has_hits_splits_envy_voids_and_corrections(db: Path) -> None:
    raw = raw_sums(db).values()
    assert sum(m.awards.get(("progressive", h), 0) for m in raw for h in ("royal_flush",)) > 0
    assert sum(m.splits for m in raw) >= 2
    assert sum(c for m in raw for (k, _), c in m.awards.items() if k == "envy") > 0
    assert sum(m.voided for m in raw) > 0
    assert sum(len(m.corrections) for m in raw) == 2


def test_the_whole_log_reconciles_to_the_independent_sums(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, document = report(db, capsys)
    assert code == 0
    assert document["ok"] is True
    assert document["findings"] == []
    meters = by_meter(document)
    for meter_id, m in raw_sums(db).items():
        got = meters[meter_id]
        assert got["balanced"] is True
        assert (sub(got["closing"]["amount"]), sub(got["closing"]["reserve"])) == (
            m.amount,
            m.reserve,
        )
        assert got["contributions"]["count"] == m.contributions
        assert sub(got["contributions"]["primary"]) == m.primary
        assert sub(got["contributions"]["reserve"]) == m.reserve_in
        assert {t["table_id"]: t["count"] for t in got["contributions"]["by_table"]} == m.by_table
        assert (got["reversals"]["count"], sub(got["reversals"]["primary"])) == (
            m.voided,
            m.voided_primary,
        )
        assert (sub(got["paid"]), sub(got["reseeds"])) == (m.paid, m.reseeds)
        items = got["corrections"]["items"]
        assert [(c["by"], c["reason"], sub(c["amount"])) for c in items] == m.corrections
        assert {(a["kind"], a["hand"]): a["count"] for a in got["awards"]} == m.awards
        assert {(a["kind"], a["hand"]): cents(a["amount"]) for a in got["awards"]} == m.award_cents
        assert got["splits"] == m.splits


def test_the_closing_is_the_engines_own_fold(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, document = report(db, capsys)
    log = SqliteLog(db)
    try:
        state, _ = fold_log(log)
    finally:
        log.close()
    for meter_id, got in by_meter(document).items():
        assert sub(got["closing"]["amount"]) == state.meters[meter_id].amount_sub
        assert got["regulator"]["hits"] == state.meters[meter_id].hits
        assert got["regulator"]["contributions"] == state.meters[meter_id].contributions


def test_two_gaming_days_cut_the_run_where_the_clock_crosses_06_00_local(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code1, day1 = report(db, capsys, "--gaming-day", "2026-11-28", *DAY_ARGS)
    code2, day2 = report(db, capsys, "--gaming-day", "2026-11-29", *DAY_ARGS)
    assert (code1, code2) == (0, 0)
    assert day1["closing_position"] == day2["opening_position"]
    assert day1["notes"] == day2["notes"] == []
    before_cut = raw_sums(db, before=DAY_CUT)
    for meter_id, whole in raw_sums(db).items():
        first, second = by_meter(day1)[meter_id], by_meter(day2)[meter_id]
        assert first["closing"] == second["opening"]
        assert sub(first["closing"]["amount"]) == before_cut[meter_id].amount
        assert first["contributions"]["count"] == before_cut[meter_id].contributions
        counts = first["contributions"]["count"] + second["contributions"]["count"]
        assert counts == whole.contributions
        assert 0 < first["contributions"]["count"] < whole.contributions


def test_csv_parses_and_its_balance_rows_add_up(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert reconcile(db, "--format", "csv") == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    raw = raw_sums(db)
    for meter_id, m in raw.items():
        balance = {
            r["item"]: r for r in rows if r["section"] == "balance" and r["meter_id"] == meter_id
        }
        flows = (
            "opening",
            "contributions",
            "reversals",
            "seeds",
            "reseeds",
            "paid",
            "reserve_released",
            "corrections",
        )
        assert sum(sub(balance[k]["amount"]) for k in flows) == m.amount
        assert sub(balance["closing"]["amount"]) == m.amount
        assert int(balance["contributions"]["count"]) == m.contributions
    assert not [r for r in rows if r["section"] == "finding"]


def test_the_table_is_readable_and_progress_goes_to_stderr(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert reconcile(db, "--progress-every", "1000") == 0
    captured = capsys.readouterr()
    assert "Result: BALANCED" in captured.out
    assert "Meter tcp-five-card-bonus (balanced)" in captured.out
    assert "supervisor 17" in captured.out
    assert "jackpot reconcile: at position 1000 of" in captured.err


def live_model(db: Path) -> MemoryReadModel:
    """The read model as the signage feed fills it: meter_view strings plus seq."""
    log = SqliteLog(db)
    try:
        state, _ = fold_log(log)
    finally:
        log.close()
    model = MemoryReadModel()
    for meter_id, meter in state.meters.items():
        fields = {k: str(v) for k, v in meter_view(meter).items()} | {"seq": str(meter.seq)}
        model.publish(meter_id, meter.seq, fields)
    return model


def test_a_live_model_in_step_with_the_log_shows_no_drift(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, document = report(db, capsys, live=live_model(db))
    assert code == 0
    assert document["drift"] == []


def test_a_live_model_holding_a_wrong_value_is_drift(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = live_model(db)
    fields = model.read("tcp-five-of-six")
    assert fields is not None
    # Same seq as the log (the live side has seen every event) but a different amount.
    model.publish("tcp-five-of-six", int(fields["seq"]) + 1, fields | {"amount": "1.00"})
    code, document = report(db, capsys, live=model)
    assert code == 1
    assert document["ok"] is False
    assert [(d["meter_id"], d["field"], d["live"], d["status"]) for d in document["drift"]] == [
        ("tcp-five-of-six", "amount", "1.00", "drift")
    ]


def test_the_service_is_compared_through_its_meter_endpoint(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = live_model(db)

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer t0ken"
        meter_id = request.url.path.rsplit("/", 1)[-1]
        fields = model.read(meter_id)
        if fields is None or meter_id == "tcp-progressive-5":
            return httpx.Response(404, json={"error": "unknown meter"})
        return httpx.Response(200, json={k: v for k, v in fields.items() if k != "seq"})

    client = httpx.Client(transport=httpx.MockTransport(answer))
    live = ServiceMeters("http://jackpot.test/", "t0ken", client)
    code, document = report(db, capsys, live=live)
    assert code == 1
    assert [(d["meter_id"], d["status"]) for d in document["drift"]] == [
        ("tcp-progressive-5", "missing")
    ]


def test_a_tampered_hit_in_the_log_is_flagged_at_its_position(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "tampered.db"
    shutil.copy(db, copy)
    position, hit = next(
        (p, e)
        for p, e in ((p, json.loads(b)) for p, b in records(copy))
        if e["type"] == "progressive_hit"
    )
    hit["meter_before_sub"] += SUB  # a hit priced from a meter one cent higher
    rewrite(copy, position, json.dumps(hit, separators=(",", ":"), sort_keys=True).encode())
    code, document = report(copy, capsys)
    assert code == 1
    flagged = [f for f in document["findings"] if f["kind"] == "hit"]
    assert {tuple(f["positions"]) for f in flagged} == {(position,)}
    assert any("priced from a meter of" in f["message"] for f in flagged)


def test_usage_errors_exit_2(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert reconcile(db, "--gaming-day", "2026-11-29", "--after-position", "5") == 2
    assert reconcile(db, "--from", "2026-11-29T11:00:00Z") == 2
    assert reconcile(db, "--gaming-day", "29/11/2026") == 2
    assert reconcile(db, "--utc-offset", "EST", "--gaming-day", "2026-11-29") == 2
    assert reconcile(db, "--after-position", "9", "--to-position", "3") == 2
    assert reconcile(tmp_path / "missing.db") == 2
    assert "one period" in capsys.readouterr().err


@pytest.fixture
def http(db: Path) -> Iterator[TestClient]:
    log = SqliteLog(db)
    app = Starlette(routes=reconcile_routes(lambda: log))
    try:
        with TestClient(app) as client:
            yield client
    finally:
        log.close()


def test_the_http_route_answers_json_and_csv(http: TestClient, db: Path) -> None:
    query = "gaming_day=2026-11-29&day_starts=06:00&utc_offset=-05:00"
    answer = http.get(f"/v1/reconciliation?{query}")
    assert answer.status_code == 200
    document = answer.json()
    assert document["ok"] is True
    assert document["period"].startswith(DAY_CUT)
    as_csv = http.get(f"/v1/reconciliation?{query}&format=csv")
    assert as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    closing = {r["meter_id"]: r["amount"] for r in rows if r["item"] == "closing"}
    assert closing == {m["meter_id"]: m["closing"]["amount"] for m in document["meters"]}


@pytest.mark.parametrize(
    "query",
    [
        "gaming_day=2026-13-01",
        "format=xml",
        "gaming_day=2026-11-29&after_position=3",
        "colour=red",
        "from=2026-11-29T11:00:00Z",
        "after_position=-1",
    ],
)
def test_the_http_route_refuses_a_bad_query(http: TestClient, query: str) -> None:
    answer = http.get(f"/v1/reconciliation?{query}")
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("query: ")
