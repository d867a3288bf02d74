"""The parsed floor configuration's shapes: policies, progressive definitions, meters, tables.

Frozen dataclasses the pure core reads (`controller.config.floor` parses the TOML into them; the
section readers are in `controller.config.sections`). Kept apart from the parser so that a module
that only reads a configuration does not depend on how one is parsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from controller.config.parts import Award, Communication, Controls
from controller.model.money import SUBUNITS_PER_CENT

HandSource = Literal["three_card", "five_card", "five_of_six"]
ProgressiveKind = Literal["hand", "mystery"]
HAND_SOURCES: tuple[HandSource, ...] = ("three_card", "five_card", "five_of_six")
EnvyHolders = Literal["any_dealt_hand", "progressive_wagerers"]
DealerHandTurn = Literal["first_wagerer_after_own", "first_wagerer_before_own", "after_all_players"]
WAGER_TARGETS = ("own", "dealer", "other_seat")


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """Choices the rule texts leave to the operator; each is documented in README's policy table."""

    envy_holders: EnvyHolders = "any_dealt_hand"
    dealer_hand_turn: DealerHandTurn = "first_wagerer_after_own"
    folded_hands_hold_envy: bool = False
    """649a.11(c): a folded hand is collected before the dealer's cards are revealed, so by
    default it cannot be "the holder of an Envy Bonus Qualifying Hand" for other players."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressiveDef:
    """One progressive wager's paytable and meter rates, per unit of the wager (649a.12(e)-(j))."""

    progressive_id: str
    rule: str
    hand: HandSource
    seed_for_one: Fraction
    reseed_for_one: Fraction
    primary_ppm: int
    reserve_ppm: int
    pays: tuple[tuple[str, Award], ...]
    envy: Mapping[int, tuple[tuple[str, int], ...]]
    bonuses: tuple[tuple[str, Award], ...]
    wager_on: frozenset[str]
    verify_for_one_from: Fraction | None = None
    """"for 1" awards at or above this need floorperson verification (649a.11(c)(8)(ii): a Five
    Card Hand Bonus of 500 for 1); None: only percentage-of-meter awards do."""
    name: str = ""
    """What players call it on a sign ("Five Card Bonus"); "" shows the id."""
    kind: ProgressiveKind = "hand"
    """"hand": paid on a hand in the paytable. "mystery": a must-hit-by level, won by the wager
    whose contribution takes the meter to a trigger drawn at each reset in [reset, must_hit_by)
    (GLI-12 mystery progressives; `controller.mystery`). It has no paytable."""
    reset_cents: int = 0
    """A mystery level's start (its seed and its reseed), in cents."""
    must_hit_by_cents: int = 0
    """A mystery level's must-hit-by amount: every trigger is below it, so no hit reaches it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MeterDef:
    """A meter: a progressive definition at one wager unit, linked to one or more tables."""

    meter_id: str
    progressive: ProgressiveDef
    unit_cents: int
    ceiling_cents: int | None
    name: str = ""
    """The sign's name for this meter; "" uses the progressive's name."""
    divert_to: str = ""
    """``overflow = "divert:<meter_id>"``: what a contribution would put above the ceiling goes to
    that meter; "" (``overflow = "carry"``, the default): it is carried in this meter's overflow
    until the next 100% hit (NY 5320.8, NJ 13:69E-1.39A)."""

    @property
    def ceiling_sub(self) -> int | None:
        """The ceiling in sub-units; None when the meter has none."""
        return None if self.ceiling_cents is None else self.ceiling_cents * SUBUNITS_PER_CENT

    def without_limits(self) -> MeterDef:
        """The definition without its ceiling and overflow: the parts that wait for a safe point
        (a ceiling may be raised any time, Maryland COMAR 36.04.01.30)."""
        return MeterDef(
            meter_id=self.meter_id,
            progressive=self.progressive,
            unit_cents=self.unit_cents,
            ceiling_cents=None,
            name=self.name,
        )

    @property
    def mystery(self) -> bool:
        """A must-hit-by level (`controller.mystery`)."""
        return self.progressive.kind == "mystery"

    @property
    def seed_subunits(self) -> int:
        """The seed in sub-units: "for 1" times the wager unit (649a.12(e)(3)); a mystery level
        starts at its reset amount."""
        if self.progressive.kind == "mystery":
            return self.progressive.reset_cents * SUBUNITS_PER_CENT
        return int(self.progressive.seed_for_one * self.unit_cents * SUBUNITS_PER_CENT)

    @property
    def reseed_subunits(self) -> int:
        """The reseed in sub-units; 0 for 649a.12(i)(4), whose next start comes from the reserve."""
        if self.progressive.kind == "mystery":
            return self.progressive.reset_cents * SUBUNITS_PER_CENT
        return int(self.progressive.reseed_for_one * self.unit_cents * SUBUNITS_PER_CENT)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableDef:
    """A table: its game, seat count, wager unit and which wager feeds which meter."""

    table_id: str
    game: str
    seats: int
    unit_cents: int
    links: Mapping[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorConfig:
    """The whole floor. ``source`` names the file it came from, for error messages and audit."""

    source: str
    policy: Policy
    progressives: Mapping[str, ProgressiveDef]
    meters: Mapping[str, MeterDef]
    tables: Mapping[str, TableDef]
    communication: Communication = field(default_factory=Communication)
    controls: Controls = field(default_factory=Controls)
    venue: str = ""
    """The venue's title on signs (optional)."""
