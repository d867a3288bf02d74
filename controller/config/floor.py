"""The floor configuration: progressive definitions, meters, tables and settlement policies.

Progressive paytables are data, not code, because a certificate holder selects paytables in its
Rules
Submission (649a.12(e)(1): "one of the following paytables selected by the certificate holder"). The
configuration is TOML text; parsing it is pure (``tomllib.loads``), so the core can re-read a
configuration that the event log carries. A wrong configuration is refused with a `ConfigError` that
names the file, the key and what was expected. Structure (see
``examples/pa-three-card-poker.toml``)::

    [policy]                              settlement choices the rule texts leave open
    [progressives.<id>]                   a paytable: hand, seed/reseed "for 1", rates, pays, envy
    [meters.<id>]                         a meter: which progressive it runs, optional ceiling and
                                          overflow ("carry" or "divert:<meter_id>")
    [tables.<id>]                         game, seats, wager unit, and wager -> meter links
    [communication]                       optional: table_silence_limit_seconds (default 30)
    [controls]                            optional: correction_cap, dual_control_from

Bounded (issue 15): the text at most `MAX_CONFIG_TEXT` characters and nested at most as deep as
the parser can go, every number checked by shape before it is read, every amount within the
event contract's money bounds, and a level's primary plus reserve rate at most 100% of the wager.
    venue = "..."; name = "..."           optional names players read on signs (`display`)
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from controller.config.checks import check_link_targets, check_links, check_meter_bounds
from controller.config.display import display_name, toml_error
from controller.config.parts import (
    Award,
    Communication,
    ConfigReader,
    Controls,
    parse_award,
    parse_bonuses,
    parse_communication,
    parse_controls,
    parse_envy,
    parse_pays,
)
from controller.model.errors import ConfigError
from controller.model.games import GAMES, PROGRESSIVE_WAGERS
from controller.model.money import (
    RATE_DENOMINATOR,
    SUBUNITS_PER_CENT,
    parse_rate_ppm,
)

__all__ = [
    "Award",
    "Communication",
    "Controls",
    "FloorConfig",
    "MeterDef",
    "Policy",
    "ProgressiveDef",
    "TableDef",
    "forget_logged_configs",
    "load_floor_config",
    "logged_config",
    "parse_award",
]

HandSource = Literal["three_card", "five_card", "five_of_six"]
ProgressiveKind = Literal["hand", "mystery"]
HAND_SOURCES: tuple[HandSource, ...] = ("three_card", "five_card", "five_of_six")
EnvyHolders = Literal["any_dealt_hand", "progressive_wagerers"]
DealerHandTurn = Literal["first_wagerer_after_own", "first_wagerer_before_own", "after_all_players"]
WAGER_TARGETS = ("own", "dealer", "other_seat")
MAX_CONFIG_TEXT = 1_048_576


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


#: Parsed configurations by digest. Parsing is pure, so a memo changes no result; it only keeps a
#: replay, a restart or a reconciliation from parsing the same logged text once per activation.
_PARSED: dict[str, tuple[str, str, FloorConfig]] = {}
_PARSED_KEPT = 16


def logged_config(digest: str, text: str, source: str) -> FloorConfig:
    """The configuration a logged event holds (its text, its digest): parsed once per digest.

    The log keeps the text for audit; the parsed form is looked up by the digest, and the text is
    compared too, so a record whose digest does not match its text is never served another's."""
    hit = _PARSED.get(digest)
    if hit is not None and hit[0] == text and hit[1] == source:
        return hit[2]
    config = load_floor_config(text, source)
    if len(_PARSED) >= _PARSED_KEPT:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[digest] = (text, source, config)
    return config


def forget_logged_configs() -> None:
    """Empty the memo of `logged_config`, as a fresh process has it (benchmarks of a restart)."""
    _PARSED.clear()


def load_floor_config(text: str, source: str) -> FloorConfig:
    """Parse and check a floor configuration; raise ConfigError naming ``source`` and the key."""
    if len(text) > MAX_CONFIG_TEXT:
        raise ConfigError(source, "(file)", f"at most {MAX_CONFIG_TEXT} characters of TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where, what = toml_error(str(exc))
        raise ConfigError(source, where, f"not valid TOML: {what}") from exc
    except RecursionError as exc:  # arrays or inline tables nested thousands deep
        raise ConfigError(source, "(file)", "TOML nested less deeply") from exc
    root = ConfigReader(source, "", data)
    known = {
        *("policy", "progressives", "meters", "tables", "communication", "controls"),
        *("version", "title", "venue"),
    }
    root.only_keys(known)
    policy = _policy(root.table("policy", required=False))
    progressives = {
        pid: _progressive(root.table("progressives").table(pid), pid)
        for pid in root.table("progressives").names()
    }
    tables = {
        tid: _table(root.table("tables").table(tid), tid) for tid in root.table("tables").names()
    }
    check_link_targets(root.table("tables"), tables, set(root.table("meters").names()))
    meters = _meters(root.table("meters"), progressives, tables)
    check_links(root.table("tables"), tables, meters)
    return FloorConfig(
        source=source,
        policy=policy,
        progressives=progressives,
        meters=meters,
        tables=tables,
        communication=parse_communication(root.table("communication", required=False)),
        controls=parse_controls(root.table("controls", required=False)),
        venue=display_name(root, "venue"),
    )


def _policy(reader: ConfigReader) -> Policy:
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


def _progressive(reader: ConfigReader, pid: str) -> ProgressiveDef:
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


def _table(reader: ConfigReader, tid: str) -> TableDef:
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


def _meters(
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
