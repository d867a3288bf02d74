"""Building blocks of the configuration parser: a key-path-aware reader and paytable entries.

Kept apart from `config.py` so each stays short; every error names the file, the full key path and
what is expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from controller.model.errors import ConfigError, InvalidEvent
from controller.model.money import MAX_MONEY_CENTS, format_cents, parse_cents

THREE_CARD_NAMES = (
    "ace_king_queen_of_spades",
    "ace_king_queen_suited",
    "straight_flush",
    "three_of_a_kind",
    "straight",
    "flush",
    "pair",
)
FIVE_CARD_NAMES = (
    "royal_flush_of_spades",
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "pair",
)
BONUS_NAMES = ("magic_card", "lucky_bonus")  # 649a.12(i)(3)
_PERCENT = re.compile(r"([0-9]{1,3}(?:\.[0-9]{1,4})?)% of meter")
_FOR_ONE = re.compile(r"([1-9][0-9]{0,6}) for 1")
#: A "for 1" multiple or other plain number: whole, or up to six decimals, at most 10,000,000.
#: Checked by shape before `Fraction` reads it ("1e6000000" would take seconds to build).
_NUMBER = re.compile(r"[0-9]{1,8}(?:\.[0-9]{1,6})?")
MAX_FOR_ONE = 10_000_000


@dataclass(frozen=True, slots=True)
class Award:
    """A paytable entry: a share of the meter (649a.12(e)(1) "100% of meter") or "N for 1".

    "for 1" includes the wager (README of the rules): 500 for 1 on $1 pays $500.
    """

    kind: Literal["meter_percent", "for_one"]
    value: Fraction

    def describe(self) -> str:
        """The entry as the paytable prints it."""
        if self.kind == "meter_percent":
            return f"{self.value * 100}% of meter"
        return f"{self.value} for 1"


def parse_award(text: str) -> Award | None:
    """ "100% of meter", "10% of meter" or "500 for 1"; None if it is neither."""
    percent = _PERCENT.fullmatch(text)
    if percent is not None:
        share = Fraction(percent.group(1)) / 100
        return Award("meter_percent", share) if 0 < share <= 1 else None
    for_one = _FOR_ONE.fullmatch(text)
    return Award("for_one", Fraction(int(for_one.group(1)))) if for_one else None


class ConfigReader:
    """Reads one TOML table, remembering its key path so errors can name it."""

    def __init__(self, source: str, path: str, data: object) -> None:
        self.source = source
        self.path = path
        if not isinstance(data, dict):
            raise ConfigError(source, path or "(file)", "a table")
        self.data: dict[str, object] = data

    def error(self, key: str, expected: str) -> ConfigError:
        """A ConfigError for ``key`` below this table."""
        return ConfigError(self.source, self._key(key), expected)

    def _key(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def names(self) -> list[str]:
        """The keys of this table, in file order."""
        return list(self.data)

    def has(self, key: str) -> bool:
        """Whether ``key`` is present."""
        return key in self.data

    def only_keys(self, allowed: Iterable[str]) -> None:
        """Refuse unknown keys: a misspelt key silently ignored could change a paytable."""
        allowed_set = set(allowed)
        for key in self.data:
            if key not in allowed_set:
                raise self.error(key, f"one of the known keys {sorted(allowed_set)}")

    def table(self, key: str, *, required: bool = True) -> ConfigReader:
        """A sub-table; an empty one when optional and absent."""
        if key not in self.data:
            if required:
                raise self.error(key, "a table (section) that is missing")
            return ConfigReader(self.source, self._key(key), {})
        return ConfigReader(self.source, self._key(key), self.data[key])

    def string(self, key: str, default: str | None = None) -> str:
        """A string value (required when no default)."""
        value = self.data.get(key, default)
        if not isinstance(value, str) or not value:
            raise self.error(key, "a non-empty string")
        return value

    def choice(self, key: str, options: Sequence[str], default: str | None) -> str:
        """A string from a fixed list."""
        value = self.string(key, default)
        if value not in options:
            raise self.error(key, f"one of {list(options)}, got {value!r}")
        return value

    def string_list(self, key: str, options: Sequence[str], default: list[str]) -> list[str]:
        """A non-empty list of strings from a fixed list."""
        value = self.data.get(key, default)
        if not isinstance(value, list) or not value or any(v not in options for v in value):
            raise self.error(key, f"a non-empty list drawn from {list(options)}")
        return [str(v) for v in value]

    def boolean(self, key: str, *, default: bool) -> bool:
        """A true/false value."""
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, "true or false")
        return value

    def integer(self, key: str, low: int, high: int) -> int:
        """An integer within bounds."""
        value = self.data.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise self.error(key, f"a whole number from {low} to {high}")
        return value

    def fraction(self, key: str) -> Fraction:
        """A non-negative whole or decimal number ("for 1" multiples such as seed = 1000)."""
        value = self.data.get(key)
        text = str(value) if isinstance(value, int | str) and not isinstance(value, bool) else ""
        number = Fraction(text) if _NUMBER.fullmatch(text) else None
        if number is None or number > MAX_FOR_ONE:
            raise self.error(
                key, f'a non-negative number up to {MAX_FOR_ONE} such as 1000 or "0.5"'
            )
        return number

    def cents(self, key: str) -> int:
        """A positive money amount written as a string with two decimals ("5.00")."""
        text = self.string(key)
        try:
            cents = parse_cents(text)
        except InvalidEvent as exc:
            raise self.error(key, f'an amount like "1.00" ({exc})') from exc
        if cents > MAX_MONEY_CENTS:
            limit = format_cents(MAX_MONEY_CENTS)
            raise self.error(key, f"an amount of at most {limit} (the event contract's bound)")
        return cents


def _names_for(hand: str) -> tuple[str, ...]:
    return THREE_CARD_NAMES if hand == "three_card" else FIVE_CARD_NAMES


def parse_pays(reader: ConfigReader, hand: str) -> tuple[tuple[str, Award], ...]:
    """The paytable, ordered best hand first so the first match is the highest hand
    (649a.12(e)(2))."""
    names = _names_for(hand)
    reader.only_keys(names)
    pays: list[tuple[str, Award]] = []
    for name in names:
        if reader.has(name):
            award = parse_award(reader.string(name))
            if award is None:
                raise reader.error(name, '"N% of meter" (0 < N <= 100) or "N for 1"')
            pays.append((name, award))
    if not pays:
        raise reader.error("(any hand)", "at least one paying hand")
    return tuple(pays)


def parse_envy(reader: ConfigReader, hand: str) -> dict[int, tuple[tuple[str, int], ...]]:
    """Envy Bonus amounts by the receiving player's wager ("1.00", "5.00"), 649a.12(e)(5)."""
    names = _names_for(hand)
    envy: dict[int, tuple[tuple[str, int], ...]] = {}
    for unit_text in reader.names():
        try:
            unit = parse_cents(unit_text)
        except InvalidEvent as exc:
            raise reader.error(unit_text, 'a wager amount like "1.00" as the key') from exc
        by_unit = reader.table(unit_text)
        by_unit.only_keys(names)
        envy[unit] = tuple((n, by_unit.cents(n)) for n in names if by_unit.has(n))
    return envy


def parse_bonuses(reader: ConfigReader) -> tuple[tuple[str, Award], ...]:
    """Magic Card and Lucky Bonus, both "N for 1" (649a.12(i)(3))."""
    reader.only_keys(BONUS_NAMES)
    bonuses: list[tuple[str, Award]] = []
    for name in BONUS_NAMES:
        if reader.has(name):
            award = parse_award(reader.string(name))
            if award is None or award.kind != "for_one":
                raise reader.error(name, '"N for 1"')
            bonuses.append((name, award))
    return tuple(bonuses)


DEFAULT_SILENCE_LIMIT_SECONDS = 30
MAX_SILENCE_LIMIT_SECONDS = 86_400
DEFAULT_CLOCK_SKEW_SECONDS = 300


@dataclass(frozen=True, slots=True, kw_only=True)
class Communication:
    """How long a table may be silent before its progressives are reported unplayable.

    Only the edge reads it (`streams.liveness.tracker` times silence by its own clock); the core
    never
    looks at time, and no meter changes because a table is silent."""

    table_silence_limit_seconds: int = DEFAULT_SILENCE_LIMIT_SECONDS
    max_clock_skew_seconds: int = DEFAULT_CLOCK_SKEW_SECONDS
    """A table event whose ``occurred_at`` is more than this ahead of the controller's clock is
    refused: a device clock must not date records into a future gaming day."""


def parse_communication(reader: ConfigReader) -> Communication:
    """The optional ``[communication]`` section: ``table_silence_limit_seconds`` (default 30) and
    ``max_clock_skew_seconds`` (default 300)."""
    reader.only_keys({"table_silence_limit_seconds", "max_clock_skew_seconds"})
    limit, skew = DEFAULT_SILENCE_LIMIT_SECONDS, DEFAULT_CLOCK_SKEW_SECONDS
    if reader.has("table_silence_limit_seconds"):
        limit = reader.integer("table_silence_limit_seconds", 1, MAX_SILENCE_LIMIT_SECONDS)
    if reader.has("max_clock_skew_seconds"):
        skew = reader.integer("max_clock_skew_seconds", 1, MAX_SILENCE_LIMIT_SECONDS)
    return Communication(table_silence_limit_seconds=limit, max_clock_skew_seconds=skew)


DEFAULT_CORRECTION_CAP_CENTS = 100_000  # $1,000.00


@dataclass(frozen=True, slots=True, kw_only=True)
class Controls:
    """Two people for big money (the casino's dual control), from ``[controls]``.

    ``correction_cap_cents``: a correction moving the meter and reserve by more than this in all
    needs a second, different supervisor. ``dual_control_from_cents``: an award at or above this
    is paid by a supervisor other than the one who validated it; None: no such rule."""

    correction_cap_cents: int = DEFAULT_CORRECTION_CAP_CENTS
    dual_control_from_cents: int | None = None


def parse_controls(reader: ConfigReader) -> Controls:
    """The optional ``[controls]`` section: ``correction_cap`` and ``dual_control_from``."""
    reader.only_keys({"correction_cap", "dual_control_from"})
    cap = reader.cents("correction_cap") if reader.has("correction_cap") else None
    dual = reader.cents("dual_control_from") if reader.has("dual_control_from") else None
    return Controls(
        correction_cap_cents=DEFAULT_CORRECTION_CAP_CENTS if cap is None else cap,
        dual_control_from_cents=dual,
    )
