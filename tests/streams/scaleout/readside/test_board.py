"""The surveillance page's board: records through the aggregator and a review into the document
the pages serve (hand-worked sums and dollar strings), and its publisher's Redis failures."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest

from controller.model.errors import StoreUnavailable
from streams.codec import encode
from streams.scaleout.readside.aggregate import Tally, WindowKind, iso
from streams.scaleout.readside.board import HOURS_SHOWN, board_document, board_text
from streams.scaleout.readside.fold import Aggregator, Surveillance
from streams.scaleout.readside.publish import BoardPublisher, board_of
from tests.streams.scaleout.readside import records as r

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def reviewed(values: list[tuple[int, bytes]]) -> Surveillance:
    """A review after ``values`` were taken at (partition, offset by position)."""
    aggregator = Aggregator({})
    for offset, (partition, value) in enumerate(values):
        assert aggregator.take(value, partition, offset) == "applied"
    surveillance = Surveillance()
    surveillance.review(aggregator)
    return surveillance


def test_a_tables_hour_and_gaming_day_sum_its_partitions_with_exact_dollars() -> None:
    # BASE is 2026-11-29 11:00Z; the gaming day (06:00 UTC) is 2026-11-29
    surveillance = reviewed(
        [
            (0, encode(r.contribution("tcp-1", 5, 500, 12_345_678, 1))),  # $0.12345679
            (1, encode(r.contribution("tcp-1", 10, 500, 100_000_000, 0))),  # $1.00 (another part)
            (0, encode(r.hit("tcp-1", 20, 10_084))),  # $100.84
            (1, encode(r.fixed("tcp-1", 70, 4_000))),  # 12:10: the next hour
            (0, encode(r.envy("tcp-2", 15, 500))),
        ]
    )
    document = board_document(
        surveillance.windows, {"tcp-1": "below_usual"}, surveillance.watermark, NOW
    )
    tables = {t["table_id"]: t for t in document["tables"]}
    assert sorted(tables) == ["tcp-1", "tcp-2"]
    one = tables["tcp-1"]
    assert one["alert"] == "below_usual"
    assert [h["start"] for h in one["hours"]] == ["2026-11-29T12:00:00Z", "2026-11-29T11:00:00Z"]
    eleven = one["hours"][1]
    assert (eleven["contributions"], eleven["contributed_sub"]) == (2, 112_345_679)
    assert eleven["contributed"] == "1.12345679"
    assert (eleven["hits"], eleven["hit_cents"], eleven["hit_amount"]) == (1, 10_084, "100.84")
    assert (eleven["awards"], eleven["award_amount"]) == (0, "0.00")
    assert (one["hours"][0]["awards"], one["hours"][0]["award_amount"]) == (1, "40.00")
    (day,) = one["days"]
    assert day["start"] == "2026-11-29"
    assert (day["contributions"], day["hits"], day["awards"]) == (2, 1, 1)
    assert tables["tcp-2"]["alert"] is None
    assert tables["tcp-2"]["days"][0]["award_amount"] == "5.00"
    assert document["as_of"] == "2026-11-29T11:20:00Z"  # the floor watermark: partition 0
    assert document["published_at"] == "2026-11-29T20:00:00Z"
    assert document["complete"] is True
    assert "mark" not in eleven  # an offset of one partition: meaningless in a sum


def test_only_the_newest_hours_and_two_gaming_days_are_shown_newest_first() -> None:
    start = datetime(2026, 11, 27, 6, 0, tzinfo=UTC)
    windows: dict[tuple[str, WindowKind, str], Tally] = {}
    for n in range(30):
        windows[("t", "h", iso(start + timedelta(hours=n)))] = Tally(rounds=n)
    windows |= {("t", "d", f"2026-11-{d}"): Tally(rounds=d) for d in (27, 28)}
    windows[("t", "d", "2026-11-26")] = Tally(rounds=1)
    (table,) = board_document(windows, {}, None, NOW, complete=False)["tables"]
    assert [h["rounds"] for h in table["hours"]] == list(range(29, 29 - HOURS_SHOWN, -1))
    assert [d["start"] for d in table["days"]] == ["2026-11-28", "2026-11-27"]


def test_the_text_is_json_with_sorted_keys_and_the_completeness_flag() -> None:
    text = board_of(reviewed([(0, encode(r.hit("tcp-1", 1, 100)))]), complete=False)
    document = json.loads(text)
    assert document["complete"] is False
    assert document["tables"][0]["hours"][0]["hit_amount"] == "1.00"
    assert text == board_text(document)


class FlakyModel:
    """A read model whose writes fail while ``down``."""

    def __init__(self) -> None:
        self.down = False
        self.written: list[str] = []

    def write_aggregates(self, document: str) -> None:
        if self.down:
            raise StoreUnavailable("Redis read model at redis://x: write aggregates failed")
        self.written.append(document)

    def close(self) -> None:
        pass


def test_a_redis_outage_is_logged_once_and_the_next_review_publishes_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = FlakyModel()
    publisher = BoardPublisher(model)  # type: ignore[arg-type]
    surveillance = reviewed([(0, encode(r.hit("tcp-1", 1, 100)))])
    model.down = True
    with caplog.at_level(logging.INFO, logger="streams.scaleout.readside.publish"):
        assert not publisher.publish(surveillance, complete=True)
        assert not publisher.publish(surveillance, complete=True)
        model.down = False
        assert publisher.publish(surveillance, complete=True)
    assert [rec.getMessage()[:40] for rec in caplog.records] == [
        "readside: the aggregates board is not pu",
        "readside: the aggregates board is publis",
    ]
    (text,) = model.written
    assert json.loads(text)["tables"][0]["table_id"] == "tcp-1"
