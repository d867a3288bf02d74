"""Exact money: integer cents for what changes hands, integer sub-units for what meters hold.

Why two units: awards, wagers and Envy Bonuses are whole cents (a cage cannot pay half a cent),
but a
meter grows by a rate times each wager (14% of $1.00, 21% of $5.00...), and industry practice is to
carry the fractional residue on the meter rather than round it away. A sub-unit is one millionth
of a
cent, and rates are refused unless ``rate x 1,000,000`` is a whole number (six decimal places), so
every
contribution is an exact integer number of sub-units and no residue is ever lost or invented.

::

    1 dollar = 100 cents = 100,000,000 sub-units
"""

from __future__ import annotations

import re
from fractions import Fraction

from controller.model.errors import InvalidEvent

SUBUNITS_PER_CENT = 1_000_000
RATE_DENOMINATOR = 1_000_000  # rates are whole parts per million of the wager
_AMOUNT = re.compile(r"(0|[1-9][0-9]{0,11})\.([0-9]{2})")
#: The event contract's largest amount of money, $999,999,999.99 (schemas/table-event.v1.json,
#: ``amount``): a configuration's seeds, ceilings and caps and a meter itself stay within it.
MAX_MONEY_CENTS = 99_999_999_999
_RATE = re.compile(r"(?:[0-9]{1,3}(?:\.[0-9]{1,8})?%|[0-9](?:\.[0-9]{1,10})?)")


def parse_cents(text: str) -> int:
    """A positive decimal string with exactly two decimals ("1.00") as cents.

    Anything else (no decimals, three decimals, sign, exponent, zero) is refused, because a wager or
    award that is not a positive whole number of cents cannot be real.
    """
    match = _AMOUNT.fullmatch(text)
    if match is None:
        msg = f'amount {text!r} is not a positive whole number of cents like "1.00"'
        raise InvalidEvent(msg)
    cents = int(match.group(1)) * 100 + int(match.group(2))
    if cents == 0:
        msg = f"amount {text!r} must be more than zero"
        raise InvalidEvent(msg)
    return cents


def format_cents(cents: int) -> str:
    """Cents as a decimal string with two decimals; negative values keep their sign."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole}.{part:02d}"


def subunits_to_cents_floor(subunits: int) -> int:
    """Whole cents held by an amount of sub-units, rounded down (a meter never shows more than it
    holds)."""
    return subunits // SUBUNITS_PER_CENT


def format_subunits(subunits: int) -> str:
    """A meter amount as the sign shows it: rounded down to the cent."""
    return format_cents(subunits_to_cents_floor(subunits))


def format_subunits_exact(subunits: int) -> str:
    """A meter amount to the sub-unit, for reconciliation ("1234.56789012" has 8 decimals)."""
    sign = "-" if subunits < 0 else ""
    whole, part = divmod(abs(subunits), 100 * SUBUNITS_PER_CENT)
    return f"{sign}{whole}.{part:08d}"


def cents_to_subunits(cents: int) -> int:
    """Cents expressed in sub-units."""
    return cents * SUBUNITS_PER_CENT


def contribution_subunits(wager_cents: int, rate_ppm: int) -> int:
    """The exact meter increment for one wager at a rate in parts per million (649a.12(e)(3) etc.).

    cents x ppm is exact in sub-units because one sub-unit is a millionth of a cent.
    """
    return wager_cents * rate_ppm


def percent_of_meter_cents(meter_subunits: int, share: Fraction) -> int:
    """A percentage-of-meter award in whole cents, rounded down; the sub-cent rest stays on the
    meter."""
    if meter_subunits <= 0:
        return 0
    exact_subunits = meter_subunits * share
    return int(exact_subunits // SUBUNITS_PER_CENT)


def parse_rate_ppm(text: str) -> int | None:
    """A rate such as "0.14" or "14%" as whole parts per million; None when it is not exact.

    Plain decimals only, checked by shape first: an exponent such as "1e6000000" would make
    `Fraction` build a number of millions of digits (seconds of work for a few bytes of text)."""
    if _RATE.fullmatch(text) is None:
        return None
    try:
        value = Fraction(text[:-1]) / 100 if text.endswith("%") else Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    scaled = value * RATE_DENOMINATOR
    if scaled.denominator != 1 or not 0 <= scaled <= RATE_DENOMINATOR:
        return None
    return int(scaled)
