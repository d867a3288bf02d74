"""What the hot checks need of the configuration, looked up once per table and meter.

`controller.rules` reads the `FloorConfig` on every event (links, meter definitions, the game's
rules); these are the same values, gathered per table and per meter when first needed and dropped
whenever the configuration changes.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.config.floor import Award, FloorConfig, MeterDef, TableDef
from controller.fast.hands import UNSUITED_NAMES
from controller.model.games import GAMES, GameRules


class TableFacts:
    """A table's definition as the hot checks read it."""

    __slots__ = (
        "allowed_actions",
        "definition",
        "five_card_kinds",
        "game",
        "links",
        "rules",
        "seats",
        "units",
    )

    def __init__(self, config: FloorConfig, definition: TableDef) -> None:
        self.definition = definition
        self.game = definition.game
        self.seats = definition.seats
        self.links: Mapping[str, str] = definition.links
        self.rules: GameRules | None = GAMES.get(definition.game)
        self.allowed_actions: frozenset[str] = (
            frozenset()
            if self.rules is None
            else self.rules.continue_actions | self.rules.option_actions | {"fold"}
        )
        # wager -> the linked meter's wager unit, when the meter is defined
        self.units: dict[str, int] = {
            wager: config.meters[meter_id].unit_cents
            for wager, meter_id in definition.links.items()
            if meter_id in config.meters
        }
        # the linked wagers judged on five cards (`_check_counts` then wants two community
        # cards, 649a.11(c)(7)-(8)); None when a link names an undefined meter
        self.five_card_kinds: frozenset[str] | None = (
            frozenset(
                wager
                for wager, meter_id in definition.links.items()
                if config.meters[meter_id].progressive.hand == "five_card"
            )
            if all(meter_id in config.meters for meter_id in definition.links.values())
            else None
        )

    def dealer_allowed(self, config: FloorConfig, rules: GameRules, wager: str) -> bool:
        """`_check_target`'s answer for ``on="dealer"`` in a round of ``rules``."""
        meter_id = self.links.get(wager)
        if meter_id is not None and "dealer" in config.meters[meter_id].progressive.wager_on:
            return True
        return wager in rules.wagers_on_other_hands


class MeterFacts:
    """A meter's rates and ceiling. ``hot`` is False for a meter whose excess is diverted to
    another meter: its money moves through the reference decider only (`controller.ceiling`);
    an excess carried in the overflow is split here as `split_at_ceiling` splits it."""

    __slots__ = (
        "bonuses",
        "ceiling",
        "definition",
        "envy",
        "hot",
        "pays",
        "primary_ppm",
        "reserve_ppm",
        "source",
        "suited_envy",
    )

    def __init__(self, definition: MeterDef) -> None:
        self.definition = definition
        progressive = definition.progressive
        # The paytable and the Envy Bonus tables as dicts, built once per configuration rather
        # than per hand (`_paying`'s and `_envy`'s ``dict(...)``; the definition is frozen).
        self.pays: dict[str, Award] = dict(progressive.pays)
        self.envy: dict[int, dict[str, int]] = {
            amount: dict(table) for amount, table in progressive.envy.items()
        }
        self.bonuses = progressive.bonuses
        self.source: str = progressive.hand
        # Envy tables (by amount) paid only on a hand of one suit: none of their names is one an
        # unsuited hand of the source answers to (`hands.UNSUITED_NAMES`; e.g. 649a.12(e)(5):
        # A-K-Q suited, (h): royal and straight flushes, (j): royal flushes).
        unsuited = UNSUITED_NAMES.get(self.source)
        self.suited_envy: dict[int, bool] = {
            amount: unsuited is not None and unsuited.isdisjoint(table)
            for amount, table in self.envy.items()
        }
        self.primary_ppm = definition.progressive.primary_ppm
        self.reserve_ppm = definition.progressive.reserve_ppm
        self.hot = not definition.divert_to and not definition.mystery and _plain_meter(definition)
        self.ceiling = definition.ceiling_sub if self.hot else None


def _plain_meter(definition: MeterDef) -> bool:
    """Only the fields this fast path knows: a definition that grew new fields (another part of
    the rules) is left to the reference until the fast path learns them."""
    return set(type(definition).__slots__) <= _KNOWN_METER_FIELDS


_KNOWN_METER_FIELDS = {
    "meter_id",
    "progressive",
    "unit_cents",
    "ceiling_cents",
    "name",  # the sign's name: no part of the money
    "divert_to",  # where a ceiling's excess goes: a meter with one is left to the reference
    "mystery",  # a mystery level, a field or a property: left to the reference
}
