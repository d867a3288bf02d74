"""The tables the stateful machine (`tests.controller.test_stateful`) plays, and what it tracks
of each: the example floor's three tables, their wagers and units, the deck, the round phases."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from controller.model.table_events import TableEvent
from tests.reference_model import RANKS

PA = (Path(__file__).resolve().parents[2] / "examples" / "pa-three-card-poker.toml").read_text()
TABLES = ("tcp-1", "tcp-2", "tcp-7")
SHARED = ("tcp-1", "tcp-2")  # linked to the same four meters
UNITS = {"tcp-1": "1.00", "tcp-2": "1.00", "tcp-7": "5.00"}
SEATS = range(1, 8)
BASE_WAGERS = ("ante", "pair_plus", "six_card_bonus")
SURVIVES_FOLD = (
    "six_card_bonus",
    "five_card_hand_bonus",
    "five_of_six_progressive",
)  # 649a.11(b)(3)
BASE_AMOUNTS = ("1.00", "5.00", "10.00", "25.00")
DECK = tuple(rank + suit for rank in RANKS for suit in "cdhs")
SIZES = {"dealer": 3, "community": 2}  # and 3 per seat
Phase = str  # "none", "open", "locked", "settled", "voided"
Forced = dict[str, list[str]]  # position ("dealer", "community", "3") -> cards forced there

TRACK_PHASES: tuple[Phase, ...] = ("none", "open", "locked", "settled", "voided")
OPENABLE: tuple[Phase, ...] = ("none", "settled", "voided")


@dataclass(slots=True)
class Track:
    """What the machine knows of one table: its stream position and the round in play."""

    table_id: str
    offered: tuple[str, ...]  # the progressive wagers linked to a meter here
    last_seq: int = 0
    rounds: int = 0
    round_id: str = ""
    phase: Phase = "none"
    wagers: list[tuple[int, str, str, int]] = field(default_factory=list)  # seat, kind, on, cents
    decided: dict[int, str] = field(default_factory=dict)
    round_event_ids: list[str] = field(default_factory=list)
    accepted: list[TableEvent] = field(default_factory=list)

    def ante(self, seat: int) -> int | None:
        return next((c for s, k, _, c in self.wagers if (s, k) == (seat, "ante")), None)

    def seats(self) -> list[int]:
        return sorted({seat for seat, *_ in self.wagers})

    def has(self, seat: int, kind: str, on: str) -> bool:
        return any((s, k, o) == (seat, kind, on) for s, k, o, _ in self.wagers)

    def undecided(self) -> list[int]:
        return [s for s in self.seats() if self.ante(s) is not None and s not in self.decided]


def money(cents: int) -> str:
    """Cents as the contract writes an amount: "12.05"."""
    return f"{cents // 100}.{cents % 100:02d}"


def cents(text: str) -> int:
    """A contract amount ("12.05") in cents."""
    whole, part = text.split(".")
    return int(whole) * 100 + int(part)
