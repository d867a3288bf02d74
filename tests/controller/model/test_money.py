"""Exact money: whole cents for what changes hands, sub-units (a millionth of a cent) on meters.

Worked by hand: 14% of $1.00 is 14 cents = 14,000,000 sub-units; 10% of a $10,000.63 meter is
$1,000.063, paid as $1,000.06 with the 0.3 cent rest kept on the meter.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given as for_all
from hypothesis import strategies as st

from controller.model.errors import InvalidEvent
from controller.model.money import (
    SUBUNITS_PER_CENT,
    cents_to_subunits,
    contribution_subunits,
    format_cents,
    format_subunits,
    format_subunits_exact,
    parse_cents,
    parse_rate_ppm,
    percent_of_meter_cents,
    subunits_to_cents_floor,
)


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("1.00", 100),
        ("0.01", 1),
        ("5.00", 500),
        ("10000.63", 1_000_063),
        ("999999999999.99", 99_999_999_999_999),
    ],
)
def test_parse_cents(text: str, cents: int) -> None:
    assert parse_cents(text) == cents


@pytest.mark.parametrize(
    "text",
    ["1", "1.0", "1.005", "-1.00", "+1.00", "0.00", "01.00", "1e2", "1,00", " 1.00", "", "1.00 "],
)
def test_parse_cents_refuses_anything_but_positive_whole_cents(text: str) -> None:
    with pytest.raises(InvalidEvent, match="amount"):
        parse_cents(text)


@pytest.mark.parametrize(
    ("cents", "text"),
    [
        (0, "0.00"),
        (1, "0.01"),
        (100, "1.00"),
        (1_000_063, "10000.63"),
        (-5, "-0.05"),
        (-1234, "-12.34"),
    ],
)
def test_format_cents(cents: int, text: str) -> None:
    assert format_cents(cents) == text


@for_all(st.integers(min_value=1, max_value=10**14 - 1))  # 12 digits of dollars
def test_format_and_parse_are_inverse(cents: int) -> None:
    assert parse_cents(format_cents(cents)) == cents


def test_a_meter_shows_rounded_down_and_reconciles_exactly() -> None:
    # $1,000.149999... shows as $1,000.14 on the sign; reconciliation shows every sub-unit.
    amount = cents_to_subunits(100_015) - 1
    assert subunits_to_cents_floor(amount) == 100_014
    assert format_subunits(amount) == "1000.14"
    assert format_subunits_exact(amount) == "1000.14999999"
    assert format_subunits_exact(-1) == "-0.00000001"


@pytest.mark.parametrize(
    ("text", "ppm"),
    [
        ("14%", 140_000),
        ("0.14", 140_000),
        ("21%", 210_000),
        ("8%", 80_000),
        ("28%", 280_000),
        ("0", 0),
        ("100%", 1_000_000),
        ("1", 1_000_000),
        ("0.000001", 1),
        ("14.5%", 145_000),
    ],
)
def test_parse_rate(text: str, ppm: int) -> None:
    assert parse_rate_ppm(text) == ppm


@pytest.mark.parametrize("text", ["0.0000001", "101%", "1.5", "-0.1", "abc", "14", "%", "1/3"])
def test_parse_rate_refuses_inexact_or_out_of_range(text: str) -> None:
    assert parse_rate_ppm(text) is None


@pytest.mark.parametrize(
    ("wager_cents", "rate", "sub"),
    [
        (100, "14%", 14 * SUBUNITS_PER_CENT),  # 649a.12(e)(3): $0.14 per $1
        (500, "14%", 70 * SUBUNITS_PER_CENT),  # $0.70 per $5
        (100, "21%", 21 * SUBUNITS_PER_CENT),  # (h)(3), (i)(4)
        (100, "8%", 8 * SUBUNITS_PER_CENT),  # (i)(4) reserve
        (100, "28%", 28 * SUBUNITS_PER_CENT),  # (j)(3)
        (100, "14.5%", 14 * SUBUNITS_PER_CENT + SUBUNITS_PER_CENT // 2),  # half a cent carried
        (1, "0.000001", 1),  # one sub-unit: nothing is lost
    ],
)
def test_contributions_are_exact(wager_cents: int, rate: str, sub: int) -> None:
    ppm = parse_rate_ppm(rate)
    assert ppm is not None
    assert contribution_subunits(wager_cents, ppm) == sub


@pytest.mark.parametrize(
    ("meter_cents", "share", "paid_cents"),
    [
        (1_000_063, Fraction(1, 10), 100_006),  # 10% of $10,000.63 = $1,000.063 -> $1,000.06
        (1_000_028, Fraction(1, 4), 250_007),  # 25% of $10,000.28 = $2,500.07 exactly
        (1_000_021, Fraction(1, 4), 250_005),  # 25% of $10,000.21 = $2,500.0525 -> $2,500.05
        (100_014, Fraction(1), 100_014),  # 100% pays every whole cent
        (9, Fraction(1, 10), 0),  # 10% of 9 cents is 0.9 cent: nothing
    ],
)
def test_percent_of_meter_rounds_down(meter_cents: int, share: Fraction, paid_cents: int) -> None:
    assert percent_of_meter_cents(cents_to_subunits(meter_cents), share) == paid_cents


def test_a_hundred_percent_of_a_fractional_meter_leaves_the_sub_cent_rest() -> None:
    # $1,000.145 on the meter: 100% pays $1,000.14; the half cent stays.
    meter = cents_to_subunits(100_014) + SUBUNITS_PER_CENT // 2
    paid = percent_of_meter_cents(meter, Fraction(1))
    assert (paid, meter - cents_to_subunits(paid)) == (100_014, SUBUNITS_PER_CENT // 2)


@pytest.mark.parametrize("meter", [0, -1, -cents_to_subunits(5)])
def test_an_empty_or_negative_meter_pays_nothing(meter: int) -> None:
    assert percent_of_meter_cents(meter, Fraction(1)) == 0


@for_all(
    st.integers(min_value=0, max_value=10**18),
    st.sampled_from([Fraction(1), Fraction(1, 10), Fraction(1, 4), Fraction(1, 3)]),
)
def test_percent_of_meter_never_pays_more_than_the_share(meter: int, share: Fraction) -> None:
    # Rounded down: paid <= share x meter < paid + 1 cent; the rest stays on the meter.
    paid = cents_to_subunits(percent_of_meter_cents(meter, share))
    assert paid <= meter * share < paid + SUBUNITS_PER_CENT
