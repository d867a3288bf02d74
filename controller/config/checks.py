"""Checks across a configuration's parts: links name defined meters of the right hand, and a
meter's seed stays within the event contract's money bounds. Kept apart from `floor` (the
parser) so each stays short."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from controller.config.parts import ConfigReader
from controller.model.games import GAMES
from controller.model.money import MAX_MONEY_CENTS, format_cents

if TYPE_CHECKING:
    from controller.config.floor import MeterDef, TableDef


def check_link_targets(
    reader: ConfigReader, tables: Mapping[str, TableDef], known: set[str]
) -> None:
    """A link to an undefined meter is named at the link (the likely typo), before meters are
    checked for having tables."""
    for tid, table in tables.items():
        links = reader.table(tid).table("meters", required=False)
        for wager, mid in table.links.items():
            if mid not in known:
                raise links.error(wager, f"a meter defined under [meters], got {mid!r}")


def check_links(
    reader: ConfigReader, tables: Mapping[str, TableDef], meters: Mapping[str, MeterDef]
) -> None:
    for tid, table in tables.items():
        links = reader.table(tid).table("meters", required=False)
        rules = GAMES[table.game]
        for wager, mid in table.links.items():
            if mid not in meters:
                raise links.error(wager, f"a meter defined under [meters], got {mid!r}")
            hand = meters[mid].progressive.hand
            if meters[mid].mystery:  # forms no hand: any game's wager may fund it
                continue
            if hand == "three_card" and rules.player_cards != frozenset({3}):
                raise links.error(
                    wager, f"a five-card progressive: {table.game} hands are not three cards"
                )
            if hand == "five_of_six" and rules.dealer_cards != frozenset({3}):
                raise links.error(
                    wager, f"a game with a three-card dealer hand for 5 of 6, not {table.game}"
                )


def check_meter_bounds(entry: ConfigReader, meter: MeterDef) -> None:
    """A meter's seed and reseed, "for 1" times its unit, stay within the contract's money."""
    progressive = meter.progressive
    biggest = max(progressive.seed_for_one, progressive.reseed_for_one) * meter.unit_cents
    if biggest > MAX_MONEY_CENTS:
        raise entry.error(
            "progressive",
            f"a progressive whose seed and reseed at this meter's {format_cents(meter.unit_cents)}"
            f" unit stay within {format_cents(MAX_MONEY_CENTS)} (the event contract's bound)",
        )
