"""Issue 16 on the live feed: a table's own sign, each panel's last hit (PENDING until validated),
the venue's title, the controller's receive time on every row, and a round's whole story.

Over a real `EmbeddedController` on the in-memory log with a clock the test sets, so "received"
can be told apart from the device's ``occurred_at``.
"""

from __future__ import annotations

import pytest

from controller.config.floor import load_floor_config
from controller.model.commands import PayHit, ValidateHit
from controller.model.errors import ConfigError
from streams.adapters.memory import MemoryLog
from streams.embedded.engine import EmbeddedController
from streams.live.feed import LiveFeed
from tests.streams.http.support import AKQ_SPADES, CONFIG, full_round

HIT_ID = "tcp-1/R1/6/progressive/seat1"
TABLE_TYPES = {"round_opened", "wager_placed", "wagers_locked", "decision", "round_settled"}
RECEIVED = "2026-12-01T15:04:05.000Z"  # the controller's clock, not the device's 2026-11-29


@pytest.fixture
def feed() -> tuple[EmbeddedController, LiveFeed]:
    log = MemoryLog()
    engine = EmbeddedController(log, log, clock=lambda: RECEIVED)
    assert engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG)).status == "accepted"
    live = LiveFeed.attach(engine)
    live._clock = lambda: RECEIVED
    return engine, live


def operate(engine: EmbeddedController, command: type[ValidateHit] | type[PayHit]) -> None:
    by = "ann" if command is ValidateHit else "bob"  # dual control: another supervisor pays
    engine.operate(command(command_id=command.__name__, hit_id=HIT_ID, by=by, occurred_at=RECEIVED))


def test_a_tables_sign_shows_its_own_meters_in_configuration_order(
    feed: tuple[EmbeddedController, LiveFeed],
) -> None:
    _, live = feed
    assert live.meters_of_tables(["tcp-1"]) == [
        "tcp-progressive",
        "tcp-five-card",
        "tcp-five-card-bonus",
        "tcp-five-of-six",
    ]
    assert live.meters_of_tables(["tcp-7", "tcp-8"]) == ["tcp-progressive-5"]
    assert live.meters_of_tables(["nope"]) == []
    assert "tcp-8" in live.table_ids()


def test_the_venue_heads_the_snapshot(feed: tuple[EmbeddedController, LiveFeed]) -> None:
    _, live = feed
    assert live.meters_snapshot()["venue"] == "Keystone Riverfront Casino"


def test_the_last_hit_is_pending_until_validated(feed: tuple[EmbeddedController, LiveFeed]) -> None:
    engine, live = feed
    assert live.meters_snapshot(["tcp-progressive"])["last_hits"] == {}
    engine.submit(full_round(AKQ_SPADES))  # 649a.12(e): 1,000.00 + 14 cents, 100% of meter
    last = live.meters_snapshot(["tcp-progressive"])["last_hits"]["tcp-progressive"]  # type: ignore[index]
    assert (last["amount"], last["table_id"], last["share"]) == ("1000.14", "tcp-1", "100%")
    assert (last["status"], last["received_at"]) == ("pending_validation", RECEIVED)
    assert last["occurred_at"] != RECEIVED  # the device's clock, kept beside it
    operate(engine, ValidateHit)
    last = live.meters_snapshot(["tcp-progressive"])["last_hits"]["tcp-progressive"]  # type: ignore[index]
    assert last["status"] == "validated"
    operate(engine, PayHit)
    last = live.meters_snapshot(["tcp-progressive"])["last_hits"]["tcp-progressive"]  # type: ignore[index]
    assert last["status"] == "paid"
    assert live.meters_snapshot(["tcp-five-card"])["last_hits"] == {}


def test_activity_rows_carry_the_controllers_receive_time(
    feed: tuple[EmbeddedController, LiveFeed],
) -> None:
    engine, live = feed
    engine.submit(full_round(AKQ_SPADES))
    recent = live.activity_snapshot()["recent"]
    assert isinstance(recent, list)
    assert recent
    assert {row["received_at"] for row in recent} == {RECEIVED}


def test_a_backfilled_row_has_the_receive_time_the_log_kept() -> None:
    """The log keeps each record's receive time (issue 15), so a restarted service's rows from
    the log's tail show when the controller received them, not "" and not the restart's time."""
    log = MemoryLog()
    engine = EmbeddedController(log, log, clock=lambda: RECEIVED)
    engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    engine.submit(full_round(AKQ_SPADES))
    later = LiveFeed.attach(engine)  # a restarted service reads the log's tail
    recent = later.activity_snapshot()["recent"]
    assert isinstance(recent, list)
    assert {row["received_at"] for row in recent} == {RECEIVED}


def test_a_rounds_story_has_every_event_both_clocks_and_the_hits_life(
    feed: tuple[EmbeddedController, LiveFeed],
) -> None:
    engine, live = feed
    engine.submit(full_round(AKQ_SPADES))
    operate(engine, ValidateHit)
    story = live.story("tcp-1", "R1")
    assert story is not None
    events = story["events"]
    assert isinstance(events, list)
    types = [e["type"] for e in events]
    table_types = [t for t in types if t in TABLE_TYPES]
    assert table_types == [
        "round_opened",
        "wager_placed",
        "wager_placed",
        "wagers_locked",
        "decision",
        "round_settled",
    ]
    assert types.index("contribution_recorded") == types.index("wagers_locked") + 1  # at lock
    hit = next(e for e in events if e["type"] == "progressive_hit")
    assert (hit["meter_before_sub"], hit["meter_after_sub"]) == (100_014_000_000, 100_000_000_000)
    assert hit["cards"] == ["As", "Ks", "Qs"]
    assert types[-1] == "hit_validated"
    assert {e["received_at"] for e in events} == {RECEIVED}
    assert events[0]["occurred_at"].startswith("2026-11-29")  # the device's clock
    assert live.story("tcp-1", "R9") is None


def test_old_rounds_are_forgotten_first(feed: tuple[EmbeddedController, LiveFeed]) -> None:
    engine, live = feed
    live.stories._keep = 2
    for n in range(3):
        engine.submit(full_round(round_id=f"R{n}", start=1 + 6 * n))
    assert live.story("tcp-1", "R0") is None
    assert live.story("tcp-1", "R1") is not None
    assert live.story("tcp-1", "R2") is not None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('name = ""', "a non-empty string"),
        ('name = "' + "x" * 61 + '"', "a name of 1 to 60 printable characters"),
        ('name = "Royal\\nFlush"', "a name of 1 to 60 printable characters"),
    ],
)
def test_a_display_name_is_checked(line: str, expected: str) -> None:
    text = CONFIG.read_text(encoding="utf-8").replace(
        '[meters.tcp-five-card]\nprogressive = "pa-649a12h"',
        f'[meters.tcp-five-card]\nprogressive = "pa-649a12h"\n{line}',
    )
    with pytest.raises(ConfigError, match=expected):
        load_floor_config(text, "floor.toml")


def test_names_and_venue_are_optional() -> None:
    text = CONFIG.read_text(encoding="utf-8")
    plain = "\n".join(
        line for line in text.splitlines() if not line.startswith(("name =", "venue ="))
    )
    config = load_floor_config(plain, "floor.toml")
    assert config.venue == ""
    assert config.meters["tcp-five-card"].name == ""
    assert config.progressives["pa-649a12h"].name == ""
