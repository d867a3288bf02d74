"""Playability over HTTP: the ingest answer, ``GET /v1/playability`` and the metrics, with an
injected monotonic clock (`tests.streams.liveness.test_tracker.FakeClock`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.http.app import create_app
from streams.liveness.tracker import HEARTBEAT_NOTED, LivenessTracker
from tests.streams.http.support import CONFIG, auth, full_round, token_store
from tests.streams.liveness.test_tracker import START, TABLES, FakeClock, heartbeat


class Floor:
    def __init__(self, client: TestClient, controller: EmbeddedController, clock: FakeClock):
        self.client, self.controller, self.clock = client, controller, clock

    def post(self, body: object) -> dict[str, object]:
        answer = self.client.post("/v1/events", json=body, headers=auth("table_device"))
        assert answer.status_code == 200, answer.text
        result: dict[str, object] = answer.json()
        return result

    def metrics(self) -> str:
        return self.client.get("/metrics").text


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[Floor]:
    clock = FakeClock()
    log = SqliteLog(tmp_path / "jackpot.db")
    try:
        controller = EmbeddedController(log, log, monotonic=clock)
        controller.liveness = LivenessTracker(clock, wall=lambda: START)
        assert (
            controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG)).status == "accepted"
        )
        with TestClient(create_app(controller, token_store())) as client:
            yield Floor(client, controller, clock)
    finally:
        log.close()


def test_the_ingest_answer_says_what_is_in_play(floor: Floor) -> None:
    answer = floor.post([heartbeat("tcp-7"), heartbeat("tcp-99")])
    assert answer["results"] == [
        {"event_id": "hb-tcp-7-1", "status": "accepted", "reason": HEARTBEAT_NOTED},
        {
            "event_id": "hb-tcp-99-1",
            "status": "rejected",
            "reason": "unknown table 'tcp-99': a heartbeat names a table of the floor "
            "configuration (8 tables); check the device's table id",
        },
    ]
    assert answer["accepted"] == 1
    assert answer["playability"] == {
        "limit_seconds": 30,
        "tables": {
            "tcp-7": {"status": "playable", "silent_seconds": 0.0, "meters": ["tcp-progressive-5"]}
        },
        "unplayable_meters": {
            "tcp-progressive": {"tables": 6, "at": [f"tcp-{n}" for n in range(1, 7)]},
            "tcp-five-card": {"tables": 6, "at": [f"tcp-{n}" for n in range(1, 7)]},
            "tcp-five-card-bonus": {"tables": 6, "at": [f"tcp-{n}" for n in range(1, 7)]},
            "tcp-five-of-six": {"tables": 6, "at": [f"tcp-{n}" for n in range(1, 7)]},
            "tcp-progressive-5": {"tables": 1, "at": ["tcp-8"]},
        },
        "unplayable_meters_total": 5,
    }


def test_a_round_is_a_sign_of_life_and_silence_shows_in_the_next_answer(floor: Floor) -> None:
    floor.post([heartbeat(t) for t in TABLES])
    answer = floor.post(full_round(table="tcp-2"))
    assert answer["playability"]["unplayable_meters"] == {}  # type: ignore[index]
    floor.clock.advance(31)
    answer = floor.post(full_round(table="tcp-2", round_id="R2", start=7))
    playability = answer["playability"]
    assert isinstance(playability, dict)
    assert playability["tables"]["tcp-2"]["status"] == "playable"
    assert playability["unplayable_meters"]["tcp-progressive-5"] == {
        "tables": 2,
        "at": ["tcp-7", "tcp-8"],
    }


def test_get_playability_lists_every_table_and_meter_for_readers_only(floor: Floor) -> None:
    floor.post([heartbeat("tcp-1")])
    floor.clock.advance(40)
    floor.post([heartbeat("tcp-8")])
    reader = floor.client.get("/v1/playability", headers=auth("read_only"))
    assert reader.status_code == 200
    body = reader.json()
    assert body["tables"]["tcp-1"] == {
        "status": "unplayable",
        "silent_seconds": 40.0,
        "since": "2026-11-29T15:59:50.000Z",
        "reason": "table feed silent for 40 s (limit 30 s)",
    }
    assert body["tables"]["tcp-8"] == {"status": "playable", "silent_seconds": 0.0}
    assert body["meters"]["tcp-progressive-5"] == {
        "status": "in_play",
        "tables": ["tcp-7", "tcp-8"],
        "unplayable_at": ["tcp-7"],
    }
    assert body["meters"]["tcp-progressive"]["status"] == "unplayable"
    assert floor.client.get("/v1/playability", headers=auth("supervisor")).status_code == 200
    assert floor.client.get("/v1/playability", headers=auth("table_device")).status_code == 403
    assert floor.client.get("/v1/playability").status_code == 401


def test_the_metrics_show_unplayable_links_silence_and_heartbeats(floor: Floor) -> None:
    floor.post([heartbeat("tcp-7"), heartbeat("tcp-7", 2)])
    floor.clock.advance(10)
    text = floor.metrics()
    assert 'jackpot_progressive_unplayable{meter="tcp-progressive-5",table="tcp-7"} 0.0' in text
    assert 'jackpot_progressive_unplayable{meter="tcp-progressive-5",table="tcp-8"} 1.0' in text
    assert 'jackpot_progressive_unplayable{meter="tcp-five-card",table="tcp-3"} 1.0' in text
    assert 'jackpot_table_silence_seconds{table="tcp-7"} 10.0' in text
    assert 'jackpot_table_silence_seconds{table="tcp-8"} 10.0' in text  # since the start
    assert 'jackpot_meter_unplayable_tables{meter="tcp-progressive-5"} 1.0' in text
    assert "jackpot_heartbeats_total 2.0" in text
    floor.post([heartbeat("tcp-8")])
    text = floor.metrics()
    assert 'jackpot_progressive_unplayable{meter="tcp-progressive-5",table="tcp-8"} 0.0' in text
    assert 'jackpot_meter_unplayable_tables{meter="tcp-progressive-5"} 0.0' in text
    assert 'jackpot_rejections_total{reason_class="unknown_table"}' not in text
    floor.post([heartbeat("nope")])
    assert 'jackpot_rejections_total{reason_class="unknown_table"} 1.0' in floor.metrics()
