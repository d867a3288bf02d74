"""The example events files (examples/events/) replay to the amounts worked by hand in their
README, from the rule texts. Each file is one progressive of 58 Pa. Code § 649a.12; every wager
is $1, so a "for 1" seed is that many dollars."""

from __future__ import annotations

from pathlib import Path

import pytest

from streams.cli.replay import replay_file
from tests.streams.http.support import CONFIG, ROOT

EVENTS = ROOT / "examples" / "events"
Award = tuple[int, str, str, str]  # seat, kind, on, amount


def replay(name: str) -> tuple[dict[str, dict[str, object]], list[Award]]:
    document = replay_file(CONFIG, EVENTS / name)
    assert document["rejected"] == []
    meters = {str(m["meter_id"]): m for m in document["meters"]}  # type: ignore[attr-defined]
    awards = [
        (int(a["seat"]), str(a["kind"]), str(a["on"]), str(a["amount"]))
        for a in document["awards"]  # type: ignore[attr-defined]
    ]
    return meters, awards


def test_three_card_progressive() -> None:
    meters, awards = replay("1-three-card-progressive.jsonl")
    # 649a.12(e)(1): AKQ of spades 100% of the meter: 1,000 for 1 seed + 4 wagers x 14%
    assert awards == [(2, "envy", "seat:1", "100.00"), (1, "progressive", "own", "1000.56")]
    assert meters["tcp-progressive"]["amount"] == "1000.00"  # reseed 1,000 for 1, (e)(3)


def test_five_card_progressive_pays_the_second_winner_from_the_meter_after_the_first() -> None:
    meters, awards = replay("2-five-card-progressive.jsonl")
    # 10,000.84 on the meter; seat 2 first (649a.11(c)): 10% rounded down, then seat 1 the rest
    progressive = [a for a in awards if a[1] == "progressive"]
    assert progressive == [
        (2, "progressive", "own", "1000.08"),
        (1, "progressive", "own", "9000.76"),
    ]
    assert sorted(a for a in awards if a[1] == "envy") == [
        (1, "envy", "seat:2", "300.00"),  # 649a.12(h) envy for a straight flush
        (2, "envy", "seat:1", "1000.00"),  # and for a royal flush
    ]
    assert meters["tcp-five-card"]["amount"] == "10000.00"


def test_five_card_hand_bonus_on_the_dealer_splits_and_restarts_from_the_reserve() -> None:
    meters, awards = replay("3-five-card-hand-bonus.jsonl")
    # 649a.12(i)(2): 10,000.63 divided equally; the odd cent to the first in settlement order
    assert awards == [
        (2, "progressive", "dealer", "5000.32"),
        (1, "progressive", "dealer", "5000.31"),
    ]
    assert meters["tcp-five-card-bonus"]["amount"] == "0.24"  # reseed 0 + 3 x 8% reserve, (i)(4)


def test_five_of_six() -> None:
    meters, awards = replay("4-five-of-six.jsonl")
    assert awards == [(2, "envy", "seat:1", "100.00"), (1, "progressive", "own", "10001.12")]
    assert meters["tcp-five-of-six"]["amount"] == "10000.00"


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.jsonl")), ids=lambda p: p.name)
def test_each_file_is_small_and_at_one_table(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert 0 < len(lines) <= 30
    assert len({line.split('"table_id":"')[1].split('"')[0] for line in lines}) == 1
