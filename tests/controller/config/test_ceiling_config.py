"""The ``ceiling`` and ``overflow`` keys of a meter (NY 5320.8, NJ 13:69E-1.39A): a wrong one is
refused with the key and what was expected; a good one is read exactly."""

from __future__ import annotations

import pytest

from controller.config.floor import load_floor_config
from controller.model.errors import ConfigError
from tests.controller.scenario import PA

PLAIN = '[meters.{m}]\nprogressive = "{p}"\n'
METERS = {
    "tcp-progressive": "pa-649a12e-A",
    "tcp-five-card": "pa-649a12h",
    "tcp-five-of-six": "pa-649a12j",
}


def limited(**limits: str) -> str:
    """The example floor with extra lines for some meters (keyword: meter id with _ for -)."""
    text = PA
    for key, lines in limits.items():
        meter = key.replace("_", "-")
        plain = PLAIN.format(m=meter, p=METERS[meter])
        assert plain in text
        text = text.replace(plain, plain + lines + "\n")
    return text


def refusal(text: str) -> ConfigError:
    """The ConfigError that loading ``text`` raises."""
    with pytest.raises(ConfigError) as info:
        load_floor_config(text, "floor.toml")
    return info.value


def test_carry_is_the_default_and_divert_names_its_meter() -> None:
    config = load_floor_config(
        limited(
            tcp_progressive='ceiling = "1500.00"',
            tcp_five_card='ceiling = "20000.00"\noverflow = "divert:tcp-five-of-six"',
        ),
        "floor.toml",
    )
    progressive, five = config.meters["tcp-progressive"], config.meters["tcp-five-card"]
    assert (progressive.ceiling_cents, progressive.divert_to) == (150_000, "")
    assert (five.ceiling_cents, five.divert_to) == (2_000_000, "tcp-five-of-six")
    assert config.meters["tcp-five-of-six"].ceiling_cents is None


@pytest.mark.parametrize(
    ("lines", "key", "fragment"),
    [
        ('overflow = "carry"', "meters.tcp-progressive.overflow", "without a ceiling"),
        ('ceiling = "1500.00"\noverflow = "spill"', "meters.tcp-progressive.overflow", "carry"),
        (
            'ceiling = "1500.00"\noverflow = "divert:nowhere"',
            "meters.tcp-progressive.overflow",
            "another meter",
        ),
        (
            'ceiling = "1500.00"\noverflow = "divert:tcp-progressive"',
            "meters.tcp-progressive.overflow",
            "another meter",
        ),
        ('ceiling = "999.99"', "meters.tcp-progressive.ceiling", "seed"),  # seed $1,000
        ('ceiling = "1500"', "meters.tcp-progressive.ceiling", '"1.00"'),
    ],
)
def test_bad_ceilings_and_overflows_are_refused_by_key(lines: str, key: str, fragment: str) -> None:
    error = refusal(limited(tcp_progressive=lines))
    assert error.key == key
    assert fragment in error.expected


def test_a_divert_loop_is_refused() -> None:
    # Money diverted round a loop of full meters would never land.
    error = refusal(
        limited(
            tcp_five_card='ceiling = "20000.00"\noverflow = "divert:tcp-five-of-six"',
            tcp_five_of_six='ceiling = "20000.00"\noverflow = "divert:tcp-five-card"',
        )
    )
    assert error.key.endswith(".overflow")
    assert "loop" in error.expected


def test_a_divert_chain_without_a_loop_is_accepted() -> None:
    config = load_floor_config(
        limited(
            tcp_progressive='ceiling = "1500.00"\noverflow = "divert:tcp-five-card"',
            tcp_five_card='ceiling = "20000.00"\noverflow = "divert:tcp-five-of-six"',
        ),
        "floor.toml",
    )
    assert config.meters["tcp-progressive"].divert_to == "tcp-five-card"
