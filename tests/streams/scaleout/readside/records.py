"""Encoded records of the events topic for the read-side tests: each kind the aggregates count,
built from the core's own event types and written by the log codec (`streams.codec.encode`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from controller.model.events import (
    AwardShare,
    ContributionRecorded,
    ContributionsReversed,
    EnvyAwarded,
    Event,
    FixedAwarded,
    MeterSeeded,
    ProgressiveHit,
)
from streams.codec import decode, encode

BASE = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)
#: A settled round as the simulator writes it (the door's contract): table and time replaced.
_SETTLED = {
    "community": ["Th", "7h"],
    "dealer": ["8h", "3c", "Js"],
    "event_id": "tcp-3:853",
    "magic_card": "Ks",
    "occurred_at": "2026-11-29T13:21:42.162Z",
    "random_seat": "dealer",
    "round_id": "tcp-3-R000030",
    "seats": {"1": ["9d", "Ts", "6d"], "2": ["8d", "4s", "6c"]},
    "seq": 853,
    "table_id": "tcp-3",
    "type": "round_settled",
}


def at(minutes: int) -> str:
    """``BASE`` plus ``minutes``, as an event's ``occurred_at``."""
    return (BASE + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def contribution(table: str, minutes: int, wager: int, primary: int, reserve: int) -> Event:
    return ContributionRecorded(
        meter_id="m1",
        table_id=table,
        round_id=f"{table}-R1",
        seat=1,
        wager="progressive",
        on="own",
        wager_cents=wager,
        primary_sub=primary,
        reserve_sub=reserve,
        meter_seq=1,
        occurred_at=at(minutes),
    )


def reversal(table: str, minutes: int, primary: int, reserve: int) -> Event:
    return ContributionsReversed(
        meter_id="m1",
        table_id=table,
        round_id=f"{table}-R1",
        primary_sub=primary,
        reserve_sub=reserve,
        count=1,
        reason="voided",
        meter_seq=2,
        occurred_at=at(minutes),
    )


def hit(table: str, minutes: int, cents: int) -> Event:
    return ProgressiveHit(
        hit_id=f"h-{table}-{minutes}-{cents}",
        meter_id="m1",
        table_id=table,
        round_id=f"{table}-R1",
        wager="progressive",
        on="own",
        hand="royal_flush",
        cards=("As", "Ks", "Qs"),
        share="1",
        amount_cents=cents,
        winners=(AwardShare(seat=1, amount_cents=cents),),
        meter_before_sub=cents * 10_000,
        meter_after_sub=0,
        reserve_before_sub=0,
        reserve_after_sub=0,
        reseed_sub=0,
        meter_seq=3,
        occurred_at=at(minutes),
    )


def fixed(table: str, minutes: int, cents: int) -> Event:
    return FixedAwarded(
        meter_id="m2",
        table_id=table,
        round_id=f"{table}-R1",
        seat=2,
        wager="pair_plus",
        on="own",
        hand="straight",
        cards=("2s", "3d", "4c"),
        amount_cents=cents,
        occurred_at=at(minutes),
    )


def envy(table: str, minutes: int, cents: int) -> Event:
    return EnvyAwarded(
        meter_id="m3",
        table_id=table,
        round_id=f"{table}-R1",
        seat=3,
        holder_seat=1,
        wager="progressive",
        hand="royal_flush",
        cards=("As", "Ks", "Qs"),
        amount_cents=cents,
        occurred_at=at(minutes),
    )


def seeded(minutes: int) -> Event:
    """A record the aggregates do not count."""
    return MeterSeeded(meter_id="m1", amount_sub=1, meter_seq=0, occurred_at=at(minutes))


def settled(table: str, minutes: int) -> bytes:
    """A settled round of ``table`` as the events topic holds it."""
    body = {**_SETTLED, "table_id": table, "occurred_at": at(minutes)}
    body["round_id"] = f"{table}-R{minutes}"
    return encode(decode(json.dumps(body).encode()))
