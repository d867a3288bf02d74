"""``jackpot reconcile --liability`` (N.J.A.C. 13:69D-1.52) end to end, on a simulated floor with a
carried ceiling and a diverted one, across two gaming days.

Every figure is checked against sums this test computes from the raw JSON payloads in the SQLite
file, never through the code under test.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import shutil
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from controller.config.floor import load_floor_config
from streams.adapters.sqlite import SqliteLog
from streams.cli import reconcile as reconcile_cli
from streams.cli.simulate import sim_tables
from streams.embedded.engine import EmbeddedController
from streams.sim.floor import AKQ_SPADES, COMMUNITY_ROYAL, FloorSimulator, ForcedHands
from tests.streams.adapters.raw_log import records, rewrite
from tests.streams.reconcile.test_service import sub

CONFIG = Path(__file__).resolve().parents[3] / "examples" / "pa-three-card-poker.toml"
DAY_CUT = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)  # gaming day 2026-11-29 starts 06:00 -05:00
DAYS = ["--gaming-day", "2026-11-28", "--days", "2", "--day-starts", "06:00", "--utc-offset=-05:00"]
PLAIN = '[meters.{m}]\nprogressive = "{p}"\n'
FIELDS = ("primary", "reserve", "seeds", "paid", "in", "out", "voids", "corrections", "carried")


def floor_text() -> str:
    """The example floor with a carried ceiling on (e) and (h) diverting to (j)."""
    text = CONFIG.read_text(encoding="utf-8")
    for meter, progressive, limits in (
        ("tcp-progressive", "pa-649a12e-A", 'ceiling = "1000.50"'),
        (
            "tcp-five-card",
            "pa-649a12h",
            'ceiling = "10001.00"\noverflow = "divert:tcp-five-of-six"',
        ),
    ):
        plain = PLAIN.format(m=meter, p=progressive)
        assert plain in text
        text = text.replace(plain, plain + limits + "\n")
    return text


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10 rounds per table from 10:45Z (both sides of the day cut), jackpot hands forced at 10%."""
    path = tmp_path_factory.mktemp("liability") / "jackpot.db"
    text = floor_text()
    forced = ForcedHands(probability=0.1, deals=(AKQ_SPADES, COMMUNITY_ROYAL))
    start = datetime(2026, 11, 29, 10, 45, tzinfo=UTC)
    tables = sim_tables(load_floor_config(text, "floor.toml"))
    sim = FloorSimulator(tables, random.Random(23), start, void_rate=0.05, forced_hands=forced)
    log = SqliteLog(path)
    # The controller's clock reads each event's own time as it arrives: receive times (which
    # cut gaming days, issue 15) match the devices' times this test sums by.
    now = ["2026-11-29T10:00:00Z"]
    try:
        controller = EmbeddedController(log, log, snapshot_every=10**9, clock=lambda: now[0])
        controller.start(text, "floor.toml")
        for event in sim.rounds(10):
            now[0] = str(event["occurred_at"])
            controller.submit([event])
    finally:
        log.close()
    return path


def raw_flows(db: Path) -> dict[tuple[str, str], dict[str, int]]:
    """Per (gaming day, meter), the flows summed from the payloads."""
    flows: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    for _, payload in records(db):
        e = json.loads(payload)
        if "meter_id" not in e:
            continue
        stamp = datetime.fromisoformat(e["occurred_at"])
        day = "2026-11-29" if stamp >= DAY_CUT else "2026-11-28"
        _add(flows[day, e["meter_id"]], e)
    return flows


def _add(f: dict[str, int], e: dict[str, Any]) -> None:
    kind = e["type"]
    if kind == "meter_seeded":
        f["seeds"] += e["amount_sub"]
    elif kind == "contribution_recorded":
        f["primary"] += e["primary_sub"]
        f["reserve"] += e["reserve_sub"]
        f["out"] += e.get("diverted_sub", 0)
        f["carried"] += e.get("overflow_sub", 0)
    elif kind == "contribution_diverted":
        f["in"] += e["amount_sub"]
        f["out"] += e.get("diverted_sub", 0)
        f["carried"] += e.get("overflow_sub", 0)
    elif kind == "contributions_reversed":
        f["voids"] += e["primary_sub"] + e["reserve_sub"]
    elif kind == "progressive_hit":
        f["paid"] += e["amount_cents"] * 1_000_000
        f["seeds"] += e["reseed_sub"]
    elif kind == "meter_corrected":
        f["corrections"] += e["amount_delta_sub"] + e["reserve_delta_sub"]


def liability(db: Path, *argv: str) -> int:
    parser = argparse.ArgumentParser()
    reconcile_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["reconcile", "--db", str(db), "--liability", *argv])
    result: int = reconcile_cli.handle(args)
    return result


def csv_lines(db: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    assert liability(db, *DAYS, "--format", "csv") == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


def test_every_line_matches_the_raw_log_and_balances(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = raw_flows(db)
    lines = csv_lines(db, capsys)
    assert {(r["gaming_day"], r["meter_id"]) for r in lines} >= set(raw)
    for r in lines:
        f = raw.get((r["gaming_day"], r["meter_id"]), dict.fromkeys(FIELDS, 0))
        assert sub(r["contributions_primary"]) == f["primary"], r
        assert sub(r["contributions_reserve"]) == f["reserve"], r
        assert sub(r["seeds"]) == f["seeds"], r
        assert sub(r["awards_paid"]) == f["paid"], r
        assert (sub(r["transfers_in"]), sub(r["transfers_out"])) == (f["in"], f["out"]), r
        assert sub(r["voids"]) == f["voids"], r
        assert sub(r["corrections"]) == f["corrections"], r
        assert sub(r["carried_to_overflow"]) == f["carried"], r
        closing_total = sum(
            sub(r[k]) for k in ("closing_meter", "closing_reserve", "closing_overflow")
        )
        assert sub(r["closing_liability"]) == closing_total
        flows = f["primary"] + f["reserve"] + f["seeds"] - f["paid"] + f["in"] - f["out"]
        flows += f["corrections"] - f["voids"]
        assert sub(r["opening_liability"]) + flows == closing_total, r
        assert (r["difference"], r["balanced"]) == ("0.00000000", "yes")


def test_the_run_crosses_the_ceilings_and_the_days(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = csv_lines(db, capsys)
    by_day: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for r in lines:
        by_day[r["gaming_day"]][r["meter_id"]] = r
    assert set(by_day) == {"2026-11-28", "2026-11-29"}
    assert sum(sub(r["carried_to_overflow"]) for r in lines) > 0
    assert sum(sub(r["transfers_out"]) for r in lines) > 0
    # A divert moves money between levels: what left one arrived at another, day by day.
    for day in by_day.values():
        assert sum(sub(r["transfers_out"]) for r in day.values()) == sum(
            sub(r["transfers_in"]) for r in day.values()
        )
    for meter_id, second in by_day["2026-11-29"].items():
        first = by_day["2026-11-28"][meter_id]
        for pool in ("meter", "reserve", "overflow"):
            assert first[f"closing_{pool}"] == second[f"opening_{pool}"]


def test_json_carries_the_same_figures(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = csv_lines(db, capsys)
    assert liability(db, *DAYS, "--format", "json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is True
    assert [row["closing_liability"] for row in document["lines"]] == [
        r["closing_liability"] for r in lines
    ]
    assert all(row["balanced"] is True for row in document["lines"])


def test_a_tampered_hit_makes_its_line_differ(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "tampered.db"
    shutil.copy(db, copy)
    # The last hit: a later one would record the meter's absolute value again.
    position, payload = [
        (p, json.loads(v)) for p, v in records(copy) if json.loads(v)["type"] == "progressive_hit"
    ][-1]
    payload["meter_after_sub"] += 1_000_000  # one cent appears on the meter
    rewrite(copy, position, json.dumps(payload).encode())
    assert liability(copy, *DAYS, "--format", "csv") == 1
    rows_out = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    differing = [r for r in rows_out if r["balanced"] == "NO"]
    assert [(r["meter_id"], r["difference"]) for r in differing] == [
        (payload["meter_id"], "0.01000000")
    ]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ((), "--gaming-day"),
        (("--gaming-day", "2026-11-28", "--days", "0"), "--days"),
        (("--gaming-day", "2026-11-28", "--after-position", "3"), "whole gaming days"),
        (("--gaming-day", "28/11/2026"), "not a date"),
    ],
)
def test_a_usage_mistake_is_one_line(
    db: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], fragment: str
) -> None:
    assert liability(db, *argv) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert err.count("\n") == 1
