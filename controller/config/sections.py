"""Reading the floor configuration's sections: ``[policy]``, ``[progressives.*]``, ``[tables.*]``
and ``[meters.*]`` into `controller.config.defs` shapes.

Each reader checks its section as `controller.config.floor.load_floor_config` documents (every key
known, every number by shape, rates at most 100% of the wager, ceilings and overflows consistent)
and raises `ConfigError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from controller.config.checks import check_meter_bounds
from controller.config.defs import (
    HAND_SOURCES,
    WAGER_TARGETS,
    MeterDef,
    Policy,
    ProgressiveDef,
    TableDef,
)
from controller.config.display import display_name
from controller.config.parts import (
    ConfigReader,
    parse_bonuses,
    parse_envy,
    parse_pays,
)
from controller.model.games import GAMES, PROGRESSIVE_WAGERS
from controller.model.money import RATE_DENOMINATOR, parse_rate_ppm


def read_policy(reader: ConfigReader) -> Policy:
    reader.only_keys({"envy_holders", "dealer_hand_turn", "folded_hands_hold_envy"})
    envy = reader.choice(
        "envy_holders", ("any_dealt_hand", "progressive_wagerers"), "any_dealt_hand"
    )
    turn = reader.choice(
        "dealer_hand_turn",
        ("first_wagerer_after_own", "first_wagerer_before_own", "after_all_players"),
        "first_wagerer_after_own",
    )
    folded = reader.boolean("folded_hands_hold_envy", default=False)
    return Policy(
        envy_holders=envy,  # type: ignore[arg-type]
        dealer_hand_turn=turn,  # type: ignore[arg-type]
        folded_hands_hold_envy=folded,
    )


def read_progressive(reader: ConfigReader, pid: str) -> ProgressiveDef:
    if reader.has("kind") and reader.choice("kind", ("hand", "mystery"), "hand") == "mystery":
        return _mystery(reader, pid)
    reader.only_keys(
        {
            "rule",
            "hand",
            "seed",
            "reseed",
            "primary_rate",
            "reserve_rate",
            "pays",
            "envy",
            "bonuses",
            "wager_on",
            "verify_for_one_from",
            "name",
            "kind",
        }
    )
    hand = reader.choice("hand", HAND_SOURCES, None)
    primary = _rate(reader, "primary_rate", required=True)
    reserve = _rate(reader, "reserve_rate", required=False)
    if primary + reserve > RATE_DENOMINATOR:
        raise reader.error(
            "reserve_rate",
            "a rate that with primary_rate adds up to at most 100% of the wager "
            f"(primary {primary / 10_000}% + reserve {reserve / 10_000}%)",
        )
    return ProgressiveDef(
        progressive_id=pid,
        rule=reader.string("rule"),
        hand=hand,  # type: ignore[arg-type]
        seed_for_one=reader.fraction("seed"),
        reseed_for_one=reader.fraction("reseed"),
        primary_ppm=primary,
        reserve_ppm=reserve,
        pays=parse_pays(reader.table("pays"), hand),
        envy=parse_envy(reader.table("envy", required=False), hand),
        bonuses=parse_bonuses(reader.table("bonuses", required=False)),
        wager_on=frozenset(reader.string_list("wager_on", WAGER_TARGETS, ["own"])),
        verify_for_one_from=reader.fraction("verify_for_one_from")
        if reader.has("verify_for_one_from")
        else None,
        name=display_name(reader, "name"),
    )


def _mystery(reader: ConfigReader, pid: str) -> ProgressiveDef:
    """A must-hit-by level: its range and rates, no paytable (`controller.mystery`)."""
    reader.only_keys(
        {"rule", "kind", "reset", "must_hit_by", "primary_rate", "reserve_rate", "wager_on", "name"}
    )
    reset, must_hit_by = reader.cents("reset"), reader.cents("must_hit_by")
    if must_hit_by <= reset:
        raise reader.error("must_hit_by", f"an amount above reset ({reset} cents)")
    return ProgressiveDef(
        progressive_id=pid,
        rule=reader.string("rule", "GLI-12 mystery progressive"),
        hand="three_card",  # unused: a mystery level forms no hand
        seed_for_one=Fraction(0),
        reseed_for_one=Fraction(0),
        primary_ppm=_rate(reader, "primary_rate", required=True),
        reserve_ppm=_rate(reader, "reserve_rate", required=False),
        pays=(),
        envy={},
        bonuses=(),
        wager_on=frozenset(reader.string_list("wager_on", ("own",), ["own"])),
        name=display_name(reader, "name"),
        kind="mystery",
        reset_cents=reset,
        must_hit_by_cents=must_hit_by,
    )


def _rate(reader: ConfigReader, key: str, *, required: bool) -> int:
    text = reader.string(key, None if required else "0")
    ppm = parse_rate_ppm(text)
    if ppm is None:
        raise reader.error(
            key,
            f'a rate from 0 to 1 ("0.14" or "14%") with at most six '
            f"decimals of the wager, got {text!r}",
        )
    return ppm


def read_table(reader: ConfigReader, tid: str) -> TableDef:
    reader.only_keys({"game", "seats", "wager_unit", "meters"})
    game = reader.choice("game", tuple(GAMES), None)
    seats = reader.integer("seats", 1, 12)
    links_reader = reader.table("meters", required=False)
    links = {wager: links_reader.string(wager) for wager in links_reader.names()}
    for wager in links:
        if wager not in PROGRESSIVE_WAGERS:
            raise links_reader.error(wager, f"one of the progressive wagers {PROGRESSIVE_WAGERS}")
    return TableDef(
        table_id=tid, game=game, seats=seats, unit_cents=reader.cents("wager_unit"), links=links
    )


def read_meters(
    reader: ConfigReader, progressives: Mapping[str, ProgressiveDef], tables: Mapping[str, TableDef]
) -> dict[str, MeterDef]:
    meters: dict[str, MeterDef] = {}
    units_of: dict[str, set[int]] = {}  # one pass over the tables: a floor may have 10,000
    for table in tables.values():
        for linked in table.links.values():
            units_of.setdefault(linked, set()).add(table.unit_cents)
    progressive_ids = tuple(progressives)
    for mid in reader.names():
        entry = reader.table(mid)
        entry.only_keys({"progressive", "ceiling", "overflow", "wager_unit", "name"})
        pid = entry.choice("progressive", progressive_ids, None)
        units = set(units_of.get(mid, ()))
        if entry.has("wager_unit"):  # a meter leaving the floor keeps its unit
            units = units | {entry.cents("wager_unit")}
        if len(units) != 1:
            raise entry.error(
                "progressive",
                "a meter linked to at least one table, all of one "
                f"wager unit (found units {sorted(units)} in cents; a meter whose links were "
                "removed names its own wager_unit, the same as its tables had)",
            )
        unit = units.pop()
        definition = progressives[pid]
        if definition.envy and unit not in definition.envy:
            raise entry.error(
                "progressive",
                f"progressive {pid!r} to list Envy Bonus amounts for "
                f"the {unit}-cent wager unit of this meter",
            )
        ceiling = entry.cents("ceiling") if entry.has("ceiling") else None
        if definition.kind == "mystery" and (ceiling is not None or entry.has("overflow")):
            raise entry.error(
                "ceiling", "no ceiling or overflow on a mystery level: its must_hit_by is its limit"
            )
        meters[mid] = MeterDef(
            meter_id=mid,
            progressive=definition,
            unit_cents=unit,
            ceiling_cents=ceiling,
            name=display_name(entry, "name"),
            divert_to=_overflow(entry, mid, ceiling, set(reader.names())),
        )
        _check_ceiling(entry, meters[mid])
        check_meter_bounds(entry, meters[mid])
    _check_diverts(reader, meters)
    return meters


def _overflow(entry: ConfigReader, mid: str, ceiling: int | None, known: set[str]) -> str:
    """``overflow``: "carry" (default) or "divert:<meter_id>" of another meter on this floor."""
    if not entry.has("overflow"):
        return ""
    text = entry.string("overflow")
    if ceiling is None:
        raise entry.error("overflow", "no overflow without a ceiling (set ceiling first)")
    if text == "carry":
        return ""
    target = text.removeprefix("divert:")
    if not text.startswith("divert:") or target not in known or target == mid:
        raise entry.error(
            "overflow", f'"carry" or "divert:<another meter under [meters]>", got {text!r}'
        )
    return target


def _check_ceiling(entry: ConfigReader, meter: MeterDef) -> None:
    """A ceiling at or above the seed and the reseed: a meter must be able to start."""
    ceiling = meter.ceiling_sub
    if ceiling is not None and ceiling < max(meter.seed_subunits, meter.reseed_subunits):
        raise entry.error("ceiling", "an amount at least the meter's seed and reseed")


def _check_diverts(reader: ConfigReader, meters: Mapping[str, MeterDef]) -> None:
    """Diverts never form a loop (money sent round a cycle of full meters would never land)."""
    for start in meters:
        seen, current = {start}, meters[start].divert_to
        while current:
            if meters[current].mystery:  # only a wager may take a mystery level to its trigger
                raise reader.table(start).error(
                    "overflow", f"a divert to a meter that is not a mystery level, got {current!r}"
                )
            if current in seen:
                raise reader.table(start).error(
                    "overflow", f"a divert chain without a loop (it comes back to {current!r})"
                )
            seen.add(current)
            current = meters[current].divert_to
