"""The liveness watch on faust (`streams.scaleout.readside.liveness`), without a broker: what a
changelog record becomes, when the feed gives up, and the projector's switch. On the real broker
and Redis it is tests/integration/test_kafka_playability.py run with JACKPOT_KAFKA_LIVENESS=faust.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest

from controller.model.errors import StoreUnavailable
from streams.cli import main
from streams.scaleout.liveness import Sighting
from streams.scaleout.readside.liveness import FaustLivenessFeed, sightings_of


@dataclass(frozen=True)
class Message:
    """The fields of faust's Message the watch reads."""

    key: bytes | None
    timestamp: float  # seconds, as faust gives the broker's milliseconds
    partition: int
    offset: int


@dataclass(frozen=True)
class Event:
    message: Message


@dataclass
class Watch:
    """Records what the feed hands a `LivenessWatch`."""

    taken: list[list[Sighting]] = field(default_factory=list)
    ticks: int = 0

    def take(self, sightings: list[Sighting]) -> None:
        self.taken.append(sightings)

    def tick(self) -> None:
        self.ticks += 1


def test_a_changelog_record_is_a_sighting_dated_by_the_broker_in_milliseconds() -> None:
    # The broker stamped 2026-12-01T18:47:58.284Z = 1,796,150,878,284 ms; faust divides by 1000.
    events = [
        Event(Message(b"tcp-7", 1_796_150_878.284, 1, 41)),
        Event(Message(b"tcp-8", 1_796_150_879.001, 0, 7)),
        Event(Message(None, 1_796_150_880.0, 0, 8)),
    ]
    assert sightings_of(events) == [
        Sighting("tcp-7", 1_796_150_878_284, 1, 41),
        Sighting("tcp-8", 1_796_150_879_001, 0, 7),
        Sighting("", 1_796_150_880_000, 0, 8),  # no key: the watch counts it unconfigured
    ]


def feed(watch: Watch) -> FaustLivenessFeed:
    """A feed whose thread is never started (no broker)."""
    return FaustLivenessFeed("127.0.0.1:1", "floor1.liveness", 2, "floor1-signage-liveness", watch)  # type: ignore[arg-type]


def test_the_feed_is_ready_once_settled_and_gives_up_on_a_group_that_never_settles() -> None:
    unstarted = feed(Watch())
    assert not unstarted.ready
    assert unstarted.poll() == 0  # unsettled since its start, not for long: waiting is fine
    unstarted._unsettled_since = time.monotonic() - 91  # the first recovery never completed
    with pytest.raises(StoreUnavailable, match=r"floor1\.liveness not settled within 90 s"):
        unstarted.poll()
    unstarted._watch_settling(settled=True)  # recovery completed, no rebalance under way
    assert unstarted.ready
    assert unstarted.poll() == 0
    unstarted._watch_settling(settled=False)  # a later rebalance: still ready, timed again
    assert unstarted.ready
    assert unstarted.poll() == 0
    unstarted._watch_settling(settled=False)
    assert unstarted._unsettled_since is not None
    unstarted._unsettled_since -= 91  # that rebalance hung
    with pytest.raises(StoreUnavailable, match="not settled within 90 s"):
        unstarted.poll()


def test_what_stopped_the_app_reaches_the_projector_loop() -> None:
    unstarted = feed(Watch())
    unstarted._failed = StoreUnavailable("broker gone")  # as _run records it
    with pytest.raises(StoreUnavailable, match="broker gone"):
        unstarted.poll()


def test_notes_and_ticks_reach_the_watch() -> None:
    watch = Watch()
    unstarted = feed(watch)
    seen = [Sighting("tcp-1", 1_000)]
    unstarted._note(seen)  # what the table's apply hook calls
    unstarted.tick()
    unstarted.close()  # never started: returns at once
    assert watch.taken == [seen]
    assert watch.ticks == 1


def test_the_projector_refuses_an_unknown_watch_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JACKPOT_KAFKA_LIVENESS", "kafka-streams")
    args = ["kafka", "signage", "--prefix", "floor1", "--config", "floor.toml"]
    code = main([*args, "--redis", "redis://127.0.0.1:1/0", "--bootstrap", "127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        "jackpot kafka signage: JACKPOT_KAFKA_LIVENESS='kafka-streams' is not one of plain, faust\n"
    )


def test_the_option_chooses_the_watch_and_refuses_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["kafka", "signage", "--prefix", "floor1", "--config", "floor.toml", "--liveness"]
    with pytest.raises(SystemExit) as refused:
        main([*args, "kafka-streams"])
    assert refused.value.code == 2
    assert (
        "invalid choice: 'kafka-streams' (choose from 'plain', 'faust')" in capsys.readouterr().err
    )
