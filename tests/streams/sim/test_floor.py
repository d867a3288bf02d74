"""The floor simulator: deterministic under a seed, honest decks, the event contract's shape."""

from __future__ import annotations

import itertools
import json
import random
import re
import secrets
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import cast

import pytest

from controller.model.errors import ConfigError
from streams.sim.floor import (
    AKQ_SPADES,
    DEALER_ROYAL,
    FloorSimulator,
    ForcedDeal,
    ForcedHands,
    SimTable,
    honest_rng,
    write_jsonl,
)
from streams.sim.settings import ALL_CARDS

Event = dict[str, object]
START = datetime(2026, 11, 29, 16, 0, tzinfo=UTC)
TCP_PROGRESSIVES = (
    "progressive",
    "five_card_progressive",
    "five_card_hand_bonus",
    "five_of_six_progressive",
)
FLOOR = (
    SimTable("TCP-1", "three_card_poker", 7, 100, TCP_PROGRESSIVES),
    SimTable("TCP-5", "three_card_poker", 6, 500, ("progressive", "five_card_hand_bonus")),
    SimTable("LUN-1", "lunar_poker", 7, 500, ("progressive",)),
    SimTable("3CP-1", "three_card_prime", 6, 100, ()),
    SimTable("4CP-1", "four_card_prime", 7, 100, ("progressive",)),
)
HAND_SIZES = {
    "three_card_poker": (3, 3),
    "lunar_poker": (5, 5),
    "three_card_prime": (3, 3),
    "four_card_prime": (5, 5),
}
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def simulate(
    rounds: int,
    seed: int = 7,
    tables: tuple[SimTable, ...] = FLOOR,
    *,
    occupancy: float = 0.7,
    void_rate: float = 1 / 500,
) -> list[Event]:
    rng = random.Random(seed)
    sim = FloorSimulator(tables, rng, START, occupancy=occupancy, void_rate=void_rate)
    return list(sim.rounds(rounds))


def by_round(events: list[Event]) -> dict[str, list[Event]]:
    rounds: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        rounds[cast(str, event["round_id"])].append(event)
    return rounds


def cards_of(settled: Event) -> list[str]:
    seats = cast(dict[str, list[str]], settled["seats"])
    cards = [*cast(list[str], settled["dealer"]), *cast(list[str], settled["community"])]
    cards += [card for hand in seats.values() for card in hand]
    cards += [cast(str, settled[key]) for key in ("magic_card", "bonus_card") if key in settled]
    return cards


def of_type(events: list[Event], kind: str) -> list[Event]:
    return [event for event in events if event["type"] == kind]


@pytest.fixture(scope="module")
def floor_events() -> list[Event]:
    return simulate(300)


def test_same_seed_gives_the_same_events_and_another_seed_does_not() -> None:
    assert simulate(20, seed=11) == simulate(20, seed=11)
    assert simulate(20, seed=11) != simulate(20, seed=12)


def test_every_round_has_distinct_cards_in_the_right_counts(floor_events: list[Event]) -> None:
    rounds = by_round(floor_events)
    assert len(rounds) == 300 * len(FLOOR)
    for events in rounds.values():
        game = cast(str, events[0]["game"])
        settled = of_type(events, "round_settled")
        if not settled:
            continue
        cards = cards_of(settled[0])
        assert len(cards) == len(set(cards))
        assert set(cards) <= set(ALL_CARDS)
        check_hand_sizes(game, events, settled[0])


def check_hand_sizes(game: str, events: list[Event], settled: Event) -> None:
    player, dealer = HAND_SIZES[game]
    assert len(cast(list[str], settled["dealer"])) == dealer
    seats = cast(dict[str, list[str]], settled["seats"])
    wagering = {str(event["seat"]) for event in of_type(events, "wager_placed")}
    assert set(seats) == wagering
    sixth = {str(e["seat"]) for e in of_type(events, "decision") if e["action"] == "buy_sixth_card"}
    for seat, hand in seats.items():
        assert len(hand) == player + (seat in sixth)
    for draw in (e for e in of_type(events, "decision") if e["action"] == "draw"):
        discards = cast(list[str], draw["discards"])
        assert 2 <= len(discards) <= 5
        assert not set(discards) & set(seats[str(draw["seat"])])
    wagers = {event["wager"] for event in of_type(events, "wager_placed")}
    community = cast(list[str], settled["community"])
    five_card = game == "three_card_poker" and bool(
        wagers & {"five_card_progressive", "five_card_hand_bonus"}
    )
    assert len(community) == (2 if five_card else 0)
    assert ("bonus_card" in settled) == (game == "four_card_prime" and "all_six_bonus" in wagers)


def test_seq_strictly_increases_per_table_from_one_and_time_never_goes_back(
    floor_events: list[Event],
) -> None:
    last_seq: dict[object, int] = {}
    assert len({event["event_id"] for event in floor_events}) == len(floor_events)
    for event in floor_events:
        seq = cast(int, event["seq"])
        assert seq == last_seq.get(event["table_id"], 0) + 1
        assert event["event_id"] == f"{event['table_id']}:{seq}"
        last_seq[event["table_id"]] = seq
    stamps = [cast(str, event["occurred_at"]) for event in floor_events]
    assert all(TIMESTAMP.match(stamp) for stamp in stamps)
    assert stamps == sorted(stamps)
    assert stamps[0] >= "2026-11-29T16:00:00.000Z"


def test_tables_interleave_at_event_granularity(floor_events: list[Event]) -> None:
    first_round_tables = [event["table_id"] for event in floor_events[:40]]
    assert len(set(first_round_tables)) > 1
    switches = sum(a["table_id"] != b["table_id"] for a, b in itertools.pairwise(floor_events))
    assert switches > len(floor_events) // 4


def test_every_progressive_wager_is_the_table_unit(floor_events: list[Event]) -> None:
    units = {table.table_id: table for table in FLOOR}
    progressive = 0
    for event in of_type(floor_events, "wager_placed"):
        table = units[cast(str, event["table_id"])]
        if event["wager"] in table.progressive_wagers:
            progressive += 1
            unit = table.wager_unit_cents
            assert event["amount"] == f"{unit // 100}.{unit % 100:02d}"
        assert re.fullmatch(r"\d+\.\d\d", cast(str, event["amount"]))
    assert progressive > 1000


def test_players_fold_and_play_in_every_game(floor_events: list[Event]) -> None:
    games = {event["round_id"]: event["game"] for event in of_type(floor_events, "round_opened")}
    actions = Counter(
        (games[e["round_id"]], e["action"]) for e in of_type(floor_events, "decision")
    )
    for game, stay in (
        ("three_card_poker", "play"),
        ("three_card_prime", "play"),
        ("four_card_prime", "raise"),
        ("lunar_poker", "bet"),
    ):
        assert actions[game, "fold"] > 50, game
        assert actions[game, stay] > 50, game
    assert actions["lunar_poker", "buy_sixth_card"] > 10
    assert actions["lunar_poker", "draw"] > 10


def test_three_card_folds_are_weak_hands(floor_events: list[Event]) -> None:
    for events in by_round(floor_events).values():
        settled = of_type(events, "round_settled")
        if events[0]["game"] != "three_card_poker" or not settled:
            continue
        seats = cast(dict[str, list[str]], settled[0]["seats"])
        for fold in (e for e in of_type(events, "decision") if e["action"] == "fold"):
            ranks = [card[0] for card in seats[str(fold["seat"])]]
            assert len(set(ranks)) == 3
            assert not {"A", "K"} <= set(ranks)


def test_wagers_on_other_hands_are_offered(floor_events: list[Event]) -> None:
    on = Counter(
        (e["wager"], str(e["on"]).split(":")[0]) for e in of_type(floor_events, "wager_placed")
    )
    assert on["five_card_hand_bonus", "dealer"] > 10
    assert on["super", "dealer"] > 10
    assert on["super", "seat"] > 10
    lucky = [e for e in of_type(floor_events, "round_settled") if "random_seat" in e]
    assert lucky
    assert all("magic_card" in event for event in lucky)


def test_voids_come_after_the_lock_at_about_the_configured_rate() -> None:
    table = (SimTable("V", "three_card_prime", 6, 100, ()),)
    rounds = by_round(simulate(5_000, seed=3, tables=table, void_rate=0.02))
    voided = [events for events in rounds.values() if events[-1]["type"] == "round_voided"]
    assert 50 <= len(voided) <= 150
    for events in voided:
        kinds = [event["type"] for event in events]
        assert "wagers_locked" in kinds
        assert "round_settled" not in kinds
        assert kinds.count("round_voided") == 1


def test_default_void_rate_is_rare() -> None:
    rounds = by_round(simulate(200, seed=5))
    voided = sum(events[-1]["type"] == "round_voided" for events in rounds.values())
    assert voided <= 10


def test_forced_hands_deal_the_forced_cards_and_keep_the_deck_valid() -> None:
    forced = ForcedHands(1.0, (AKQ_SPADES,))
    sim = FloorSimulator(FLOOR[:1], random.Random(2), START, forced_hands=forced)
    settled = of_type(list(sim.rounds(100)), "round_settled")
    for event in settled:
        hands = cast(dict[str, list[str]], event["seats"]).values()
        assert any({"As", "Ks", "Qs"} == set(hand) for hand in hands)
        assert len(cards_of(event)) == len(set(cards_of(event)))


def test_forced_dealer_royal_uses_the_community_cards() -> None:
    table = (SimTable("F", "three_card_poker", 6, 100, ("five_card_hand_bonus",)),)
    forced = ForcedHands(1.0, (DEALER_ROYAL,))
    sim = FloorSimulator(table, random.Random(4), START, progressive_take=1.0, forced_hands=forced)
    for event in of_type(list(sim.rounds(50)), "round_settled"):
        assert event["dealer"] == ["Ah", "Kh", "Qh"]
        assert event["community"] == ["Jh", "Th"]
        assert len(cards_of(event)) == len(set(cards_of(event)))


def test_forced_deals_that_do_not_fit_a_game_are_not_used() -> None:
    royal = ForcedDeal(seat=("As", "Ks", "Qs", "Js", "Ts"))
    sim = FloorSimulator(
        FLOOR[:1], random.Random(1), START, forced_hands=ForcedHands(1.0, (royal,))
    )
    assert of_type(list(sim.rounds(20)), "round_settled")


def test_a_pair_comes_about_as_often_as_in_an_honest_deck() -> None:
    table = (SimTable("S", "three_card_poker", 7, 100, ()),)
    hands = [
        hand
        for event in of_type(simulate(3_000, seed=9, tables=table, occupancy=1.0), "round_settled")
        for hand in cast(dict[str, list[str]], event["seats"]).values()
    ]
    assert len(hands) >= 20_000
    pairs = sum(len({card[0] for card in hand}) == 2 for hand in hands)
    assert abs(pairs / len(hands) - 3_744 / 22_100) < 0.015  # 649a.6: 3,744 pairs in 22,100 hands
    suits = Counter(card[1] for hand in hands for card in hand)
    assert max(suits.values()) / min(suits.values()) < 1.05


def test_events_stops_exactly_and_the_next_call_continues_the_stream() -> None:
    sim = FloorSimulator(FLOOR, random.Random(8), START)
    head = list(sim.events(37))
    rest = list(sim.rounds(1))
    assert len(head) == 37
    seqs: dict[object, list[int]] = defaultdict(list)
    for event in head + rest:
        seqs[event["table_id"]].append(cast(int, event["seq"]))
    assert all(seq == list(range(1, len(seq) + 1)) for seq in seqs.values())
    assert rest[0]["round_id"] in {event["round_id"] for event in head}


def test_write_jsonl_writes_compact_sorted_lines(tmp_path: Path) -> None:
    events = simulate(2)
    path = tmp_path / "events.jsonl"
    assert write_jsonl(events, path) == len(events)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == events
    assert lines[0] == json.dumps(events[0], sort_keys=True, separators=(",", ":"))


def test_the_simulated_clock_follows_the_given_start() -> None:
    later = START + timedelta(days=3)
    sim = FloorSimulator(
        FLOOR[:1], random.Random(1), later.astimezone(timezone(timedelta(hours=-5)))
    )
    first = next(iter(sim.rounds(1)))
    assert cast(str, first["occurred_at"]).startswith("2026-12-02T16:0")


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ConfigError, match="game"):
        SimTable("X", "blackjack", 6, 100, ())
    with pytest.raises(ConfigError, match="aware"):
        FloorSimulator(FLOOR, random.Random(1), datetime(2026, 1, 1))
    with pytest.raises(ConfigError, match="table_id"):
        FloorSimulator((FLOOR[0], FLOOR[0]), random.Random(1), START)
    with pytest.raises(ConfigError, match="cards"):
        ForcedDeal(seat=("As", "As"))
    with pytest.raises(ConfigError, match="probability"):
        ForcedHands(1.5)


def test_production_rng_is_the_system_rng() -> None:
    assert isinstance(honest_rng(), secrets.SystemRandom)
