"""The live feed: alerts classified from events, the snapshot it keeps, and fan-out to clients.

The feed runs over a real `EmbeddedController` on the in-memory log, so the events are the ones
the core really produces (a forced AKQ of spades, a repeated card, a wager after the lock).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from controller.model.commands import CorrectMeter, PayHit, ValidateHit
from controller.model.errors import StoreUnavailable
from controller.model.events import EnvyAwarded, EventRejected, MeterCorrected
from streams.adapters.memory import MemoryLog
from streams.embedded.engine import EmbeddedController
from streams.live.activity import meter_labels
from streams.live.alerts import classify_alerts, rejection_kind, unexplained_moves
from streams.live.feed import Client, LiveFeed, Signal
from streams.live.redis_source import publish_hash, run_redis_pump
from streams.ports import MeterChange
from tests.streams.http.support import AKQ_SPADES, CONFIG, event, full_round, opening

AT = "2026-11-29T12:00:00.000Z"
HIT_ID = "tcp-1/R1/6/progressive/seat1"


@pytest.fixture
def controller() -> EmbeddedController:
    log = MemoryLog()
    engine = EmbeddedController(log, log)
    assert engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG)).status == "accepted"
    return engine


def envy(round_id: str, count: int) -> list[EnvyAwarded]:
    return [
        EnvyAwarded(
            meter_id="tcp-progressive",
            table_id="tcp-1",
            round_id=round_id,
            seat=seat % 7 + 1,
            holder_seat=1,
            wager="progressive",
            hand="ace_king_queen_of_spades",
            cards=AKQ_SPADES,
            amount_cents=10_000,
            occurred_at=AT,
        )
        for seat in range(count)
    ]


def rejected(reason: str, raw: str = "") -> EventRejected:
    return EventRejected(
        event_id="e1", table_id="tcp-1", event_type="x", reason=reason, occurred_at=AT, raw=raw
    )


def meter_rows(feed: LiveFeed, ids: Sequence[str] | None = None) -> list[dict[str, object]]:
    rows = feed.meters_snapshot(ids)["meters"]
    assert isinstance(rows, list)
    return rows


def kinds(feed: LiveFeed, kind: str) -> list[dict[str, object]]:
    recent = feed.activity_snapshot()["recent"]
    assert isinstance(recent, list)
    return [row for row in recent if row["kind"] == kind]


def test_rejection_reasons_are_classified() -> None:
    assert rejection_kind("card As appears twice in the settlement of round 'R1'") == (
        "repeated_card"
    )
    assert rejection_kind("a player hand repeats As in [As As Qs]: one deck") == "repeated_card"
    raw = '{"seats": {"1": ["As", "As", "Qs"]}}'
    assert rejection_kind("seats.1: [...] is not a list of 1 to 7 different cards", raw) == (
        "repeated_card"
    )
    too_many = '{"seats": {"1": ["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s"]}}'
    assert rejection_kind("is not a list of 1 to 7 different cards", too_many) is None
    assert rejection_kind("is not a list of 1 to 7 different cards", "{not json") is None
    assert rejection_kind("wager after wagers_locked: round 'R1' is locked") == "wager_after_lock"
    assert rejection_kind("unknown table 'x'") is None


def test_an_envy_storm_is_more_than_the_limit_in_one_round() -> None:
    assert classify_alerts([*envy("R1", 6), *envy("R2", 6)]) == []
    [storm] = classify_alerts([*envy("R1", 7), *envy("R2", 1)])
    assert (storm.kind, storm.table_id, storm.round_id) == ("envy_storm", "tcp-1", "R1")
    assert "7 Envy Bonuses" in storm.reason
    assert classify_alerts(envy("R1", 3), envy_storm_over=2)[0].kind == "envy_storm"


def test_a_correction_and_an_unexplained_change_are_moves_without_a_round() -> None:
    correction = MeterCorrected(
        meter_id="m",
        amount_delta_sub=-5,
        reserve_delta_sub=0,
        by="floor-sup-ann",
        reason="sign test",
        meter_seq=4,
        occurred_at=AT,
    )
    [alert] = classify_alerts([correction, rejected("unknown table 'x'")])
    assert (alert.kind, alert.meter_id) == ("meter_moved_without_round", "m")
    assert "floor-sup-ann: sign test" in alert.reason
    assert unexplained_moves({"m": 1}, {"m": 1, "n": 5}, []) == []  # n is new: nothing to compare
    assert unexplained_moves({"m": 1}, {"m": 2}, [correction]) == []  # explained by an event
    [moved] = unexplained_moves({"m": 100_000_000}, {"m": 200_000_000}, [])
    assert (moved.kind, moved.meter_id) == ("meter_moved_without_round", "m")
    assert "from 1.00 to 2.00" in moved.reason


def test_labels_are_the_names_players_know_and_what_the_top_hand_wins(
    controller: EmbeddedController,
) -> None:
    """Issue 16: "TCP FIVE CARD BONUS" is no name a player knows, and $0.24 beside "ROYAL FLUSH"
    after a hit (reseed 0, 649a.12(i)(4)) reads as the prize: the sign says what the rules pay."""
    labels = meter_labels(controller.state.config)
    assert labels["tcp-progressive-5"] == (
        "$5 Three Card Poker Progressive",  # the meter's own name
        "ACE KING QUEEN OF SPADES WINS 100% OF METER · $5 WAGER",
    )
    assert labels["tcp-five-card-bonus"] == (
        "Five Card Bonus",  # the progressive's name
        "ROYAL FLUSH WINS 100% OF METER · $1 WAGER",
    )
    assert meter_labels(None) == {}


def test_a_hit_round_is_in_the_snapshot_and_stays_open_until_paid(
    controller: EmbeddedController,
) -> None:
    feed = LiveFeed.attach(controller)
    controller.submit(full_round(AKQ_SPADES))
    [row] = meter_rows(feed, ["tcp-progressive"])
    assert (row["amount"], row["hits"]) == ("1000.00", 1)
    assert row["label"] == "Three Card Poker Progressive"
    [hit] = kinds(feed, "hit")
    assert (hit["hit_id"], hit["table_id"], hit["cards"]) == (HIT_ID, "tcp-1", ["As", "Ks", "Qs"])
    assert (hit["meter_before"], hit["meter_after"], hit["amount"]) == (
        "1000.14",
        "1000.00",
        "1000.14",
    )
    assert feed.activity_snapshot()["open_hits"] == [hit]
    for command, by in ((ValidateHit, "ann"), (PayHit, "bob")):  # dual control: two people
        controller.operate(
            command(command_id=command.__name__, hit_id=HIT_ID, by=by, occurred_at=AT)
        )
        statuses = [r["status"] for r in kinds(feed, "hit_status")]
    assert statuses == ["validated", "paid"]
    assert feed.activity_snapshot()["open_hits"] == []


def test_alerts_from_the_engine_reach_the_activity(controller: EmbeddedController) -> None:
    feed = LiveFeed.attach(controller)
    late = event(5, "wager_placed", seat=2, wager="ante", amount="1.00")
    repeated = event(
        6, "round_settled", dealer=["As", "7d", "8h"], community=[], seats={"1": ["As", "Kd", "2c"]}
    )
    controller.submit([*opening(), late, repeated])
    correct = CorrectMeter(
        command_id="c1",
        meter_id="tcp-five-card",
        amount_delta_sub=1_000_000,
        reserve_delta_sub=0,
        by="ann",
        reason="sign test",
        occurred_at=AT,
    )
    controller.operate(correct)
    alerts = [(a["alert"], a["table_id"] or a["meter_id"]) for a in kinds(feed, "alert")]
    assert alerts == [
        ("wager_after_lock", "tcp-1"),
        ("repeated_card", "tcp-1"),
        ("meter_moved_without_round", "tcp-five-card"),
    ]
    rejections = [(r["event_type"], r["reason"]) for r in kinds(feed, "rejected")]
    assert rejections == [
        ("wager_placed", "wager after wagers_locked: round 'R1' is locked"),
        ("round_settled", "card As appears twice in the settlement of round 'R1'"),
    ]
    assert [a["round_id"] for a in kinds(feed, "alert")] == ["R1", "R1", ""]


def test_a_feed_attached_late_shows_the_logs_recent_activity(
    controller: EmbeddedController,
) -> None:
    controller.submit(full_round(AKQ_SPADES))
    feed = LiveFeed.attach(controller)
    [hit] = kinds(feed, "hit")
    assert hit["status"] == "pending_validation"
    assert feed.activity_snapshot()["open_hits"] == [hit]
    short = LiveFeed.attach(controller, backfill=0)  # the hit is older than the tail
    assert short.activity_snapshot()["open_hits"] == [
        {
            "kind": "hit",
            "hit_id": HIT_ID,
            "meter_id": "tcp-progressive",
            "status": "pending_validation",
        }
    ]
    controller.submit(full_round(round_id="R2", start=7))
    assert len(kinds(feed, "hit")) == 1  # no batch is shown twice


async def drain(client: Client, timeout: float = 2.0) -> list[str]:
    """Messages until the queue is quiet."""
    out: list[str] = []
    while (message := await client.next(timeout if not out else 0.2)) is not Signal.TIMEOUT:
        assert isinstance(message, str)
        out.append(message)
    return out


def test_batches_fan_out_to_each_client_by_topic_and_meter(controller: EmbeddedController) -> None:
    feed = LiveFeed.attach(controller)

    async def scenario() -> tuple[list[str], list[str], list[str]]:
        async with (
            feed.listen("meters") as every,
            feed.listen("meters", ["tcp-five-card"]) as one,
            feed.listen("activity") as activity,
        ):
            await asyncio.to_thread(controller.submit, full_round(AKQ_SPADES))
            return await drain(every), await drain(one), await drain(activity)

    every, one, activity = asyncio.run(scenario())
    assert every[0].startswith("event: hit\n")
    assert '"table_id":"tcp-1","amount":"1000.14","reset_amount":"1000.00"' in every[0]
    assert [m.split("\n")[0] for m in every] == ["event: hit"] + ["event: meter"] * 1
    assert one == []  # its meter was not touched (only the progressive was wagered)
    assert len(activity) == 1
    assert '"kind":"hit"' in activity[0]
    assert feed.meter_ids() >= {"tcp-progressive", "tcp-five-card"}


def test_a_client_that_falls_behind_is_closed() -> None:
    feed = LiveFeed()

    async def scenario() -> list[str | Signal]:
        async with feed.listen("meters") as client:
            client.offer(["a", "b"])
            client.offer(["c"] * 2_000)
            client.offer(["d"])
            return [await client.next(0.1) for _ in range(4)]

    assert asyncio.run(scenario()) == ["a", "b", Signal.CLOSED, Signal.TIMEOUT]


class Hashes:
    """The Redis read model's surface the pump uses, in memory, with an off switch."""

    def __init__(self) -> None:
        self.hashes: dict[str, dict[str, str]] = {}
        self.changes: list[MeterChange] = []
        self.down = False
        self.stop = threading.Event()

    def subscribe(self) -> Hashes:
        if self.down:
            msg = "Redis down (test)"
            raise StoreUnavailable(msg)
        return self

    def get(self, timeout: float) -> MeterChange | None:
        if not self.changes:
            self.stop.set()
            return None
        return self.changes.pop(0)

    def close(self) -> None:
        return None

    def read(self, meter_id: str) -> dict[str, str] | None:
        return self.hashes.get(meter_id)

    def read_all(self, meter_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        return {m: self.hashes[m] for m in meter_ids if m in self.hashes}


def test_the_redis_pump_shows_hashes_and_hits_and_marks_an_outage() -> None:
    source, feed = Hashes(), LiveFeed()
    source.hashes["m"] = {"amount": "1000.14", "seq": "5", "hits": "0", "updated_at": AT}
    source.changes = [MeterChange("m", 6), MeterChange("other", 1)]
    after_hit = {"amount": "1000.00", "seq": "6", "hits": "1", "last_hit_table": "tcp-3"}
    source.read = lambda meter_id: after_hit  # type: ignore[method-assign]

    async def scenario() -> list[str]:
        async with feed.listen("meters") as client:
            await asyncio.to_thread(run_redis_pump, feed, source, ["m"], source.stop)
            return await drain(client)

    messages = asyncio.run(scenario())
    assert [m.split("\n")[0] for m in messages] == ["event: meter", "event: hit", "event: meter"]
    assert '"table_id":"tcp-3","amount":"1000.14","reset_amount":"1000.00"' in messages[1]
    [row] = meter_rows(feed)
    assert (row["amount"], row["seq"], row["hits"]) == ("1000.00", 6, 1)
    last = feed.meters_snapshot(["m"])["last_hits"]["m"]  # type: ignore[index]
    assert (last["table_id"], last["amount"]) == ("tcp-3", "1000.14")  # the panel's last hit
    assert not publish_hash(feed, "m", {"amount": "1.00", "seq": "6", "hits": "1"})  # not newer
    assert not publish_hash(feed, "m", {"amount": "1.00", "seq": "x"})  # malformed
    assert meter_rows(feed) == [row]
    source.down, source.stop = True, threading.Event()
    threading.Timer(0.05, source.stop.set).start()
    run_redis_pump(feed, source, ["m"], source.stop, retry_after=0.01)
    assert (feed.source_ok, feed.meters_snapshot()["live"]) == (False, False)
    assert feed.fault().startswith("event: fault\n")
    assert "Redis down" in feed.fault()
    feed.source_up()
    assert feed.meters_snapshot()["live"] is True


def test_rows_carry_the_controllers_receive_time_beside_the_devices() -> None:
    """Issue 15, finding 6: surveillance shows the controller's time (date and zone) with the
    device's beside it; a row from the log's tail has the receive time the log kept."""
    log = MemoryLog()
    engine = EmbeddedController(log, log, clock=lambda: "2026-11-29T17:00:00.000Z")
    engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    engine.submit(full_round(AKQ_SPADES))
    late = LiveFeed.attach(engine)  # its own clock is the real one, long after 17:00 that day
    [hit] = kinds(late, "hit")
    assert hit["received_at"] == "2026-11-29T17:00:00.000Z"  # from the log, not the feed's now
    assert hit["occurred_at"] == "2026-11-29T16:00:06Z"  # the device's, as it sent it
    engine.submit(full_round(AKQ_SPADES, round_id="R2", start=7))
    second = kinds(late, "hit")[-1]
    assert second["hit_id"] != hit["hit_id"]
    assert str(second["received_at"]) > "2026-11-29T17:00:00.000Z"  # received now
