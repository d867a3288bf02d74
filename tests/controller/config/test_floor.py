"""The floor configuration: a wrong one is refused with a ConfigError naming the file, the key and
what was expected, so an operator can fix it without reading code."""

from __future__ import annotations

from fractions import Fraction

import pytest

from controller.config.floor import load_floor_config, logged_config
from controller.model.errors import ConfigError
from tests.controller.scenario import (
    PA,
    accepted,
    activate,
    correct,
    given,
    locked_round,
    meter_is,
    rejected,
    sub,
    voided,
    wager,
)

SMALL = """
[progressives.p]
rule = "649a.12(e) A"
hand = "three_card"
seed = 1000
reseed = 1000
primary_rate = "14%"

[progressives.p.pays]
ace_king_queen_of_spades = "100% of meter"
straight = "6 for 1"

[progressives.p.envy."1.00"]
ace_king_queen_of_spades = "100.00"

[meters.m]
progressive = "p"

[tables.t]
game = "three_card_poker"
seats = 7
wager_unit = "1.00"
meters = { progressive = "m" }
"""


def refusal(text: str) -> ConfigError:
    """The ConfigError that loading ``text`` as small.toml raises."""
    with pytest.raises(ConfigError) as info:
        load_floor_config(text, "small.toml")
    return info.value


def test_the_small_configuration_loads() -> None:
    # 649a.12(e)(3): seed "$1,000 for 1" on a $1 unit; 14% is 140,000 parts per million.
    meter = load_floor_config(SMALL, "small.toml").meters["m"]
    assert (meter.unit_cents, meter.seed_subunits) == (100, 1000 * 100 * 1_000_000)
    assert meter.progressive.primary_ppm == 140_000
    assert dict(meter.progressive.pays)["straight"].value == Fraction(6)


def test_the_example_floor_loads_with_its_policies() -> None:
    config = load_floor_config(PA, "pa.toml")
    assert config.policy.envy_holders == "any_dealt_hand"
    assert config.policy.dealer_hand_turn == "first_wagerer_after_own"
    assert config.meters["tcp-progressive-5"].unit_cents == 500
    assert config.meters["tcp-five-card-bonus"].progressive.reserve_ppm == 80_000


@pytest.mark.parametrize(
    ("old", "new", "key", "expected"),
    [
        ('primary_rate = "14%"', 'primary_rate = "14"', "progressives.p.primary_rate", "0 to 1"),
        (
            'primary_rate = "14%"',
            'primary_rate = "14%"\nreserve_rate = "0.0000001"',
            "progressives.p.reserve_rate",
            "six",
        ),
        ("seats = 7", "seats = 13", "tables.t.seats", "1 to 12"),
        ('game = "three_card_poker"', 'game = "blackjack"', "tables.t.game", "blackjack"),
        (
            'meters = { progressive = "m" }',
            'meters = { pair_plus = "m" }',
            "tables.t.meters.pair_plus",
            "progressive wagers",
        ),
        ('straight = "6 for 1"', 'straight = "6 to 1"', "progressives.p.pays.straight", "for 1"),
        (
            'ace_king_queen_of_spades = "100% of meter"',
            'ace_king_queen_of_spades = "0% of meter"',
            "progressives.p.pays.ace_king_queen_of_spades",
            "0 < N <= 100",
        ),
        (
            'ace_king_queen_of_spades = "100% of meter"',
            'royal_flush = "100% of meter"',
            "progressives.p.pays.royal_flush",
            "known keys",
        ),
        ("seed = 1000", "sed = 1000", "progressives.p.sed", "known keys"),
        ("seed = 1000", "seed = -1", "progressives.p.seed", "non-negative"),
        ("reseed = 1000", "reseed = true", "progressives.p.reseed", "non-negative"),
        ('hand = "three_card"', 'hand = "four_card"', "progressives.p.hand", "four_card"),
        (
            'wager_unit = "1.00"',
            'wager_unit = "5.00"',
            "meters.m.progressive",
            "Envy Bonus amounts for the 500-cent",
        ),
        ('wager_unit = "1.00"', 'wager_unit = "1"', "tables.t.wager_unit", '"1.00"'),
        ('progressive = "p"', 'progressive = "q"', "meters.m.progressive", "got 'q'"),
        (
            'game = "three_card_poker"',
            'game = "lunar_poker"',
            "tables.t.meters.progressive",
            "not three cards",
        ),
        ('envy."1.00"]', 'envy."1"]', "progressives.p.envy.1", '"1.00"'),
        (
            'primary_rate = "14%"',
            'primary_rate = "14%"\nwager_on = ["own", "mars"]',
            "progressives.p.wager_on",
            "own",
        ),
        (
            'primary_rate = "14%"',
            'primary_rate = "14%"\nbonuses = { magic_card = "20% of meter" }',
            "progressives.p.bonuses.magic_card",
            "for 1",
        ),
    ],
)
def test_a_wrong_value_names_file_key_and_expectation(
    old: str, new: str, key: str, expected: str
) -> None:
    assert old in SMALL
    error = refusal(SMALL.replace(old, new, 1))
    assert (error.source, error.key) == ("small.toml", key)
    assert expected in error.expected
    assert str(error).startswith(f"small.toml: {key}: ")


@pytest.mark.parametrize(
    ("prefix", "key"),
    [
        ('[policy]\nenvy_holders = "all"\n', "policy.envy_holders"),
        ('[policy]\ndealer_hand_turn = "whenever"\n', "policy.dealer_hand_turn"),
        ('[policy]\nmood = "calm"\n', "policy.mood"),
        ('colour = "red"\n', "colour"),
    ],
)
def test_top_level_and_policy_keys_are_checked(prefix: str, key: str) -> None:
    assert refusal(prefix + SMALL).key == key


def test_a_meter_of_two_wager_units_is_refused() -> None:
    # 649a.12(e)(3): seed and rates are "for 1" of one wager amount; a meter cannot mix $1 and $5.
    second = SMALL.replace(
        "[tables.t]",
        '[tables.u]\ngame = "three_card_poker"\nseats = 7\n'
        'wager_unit = "5.00"\nmeters = { progressive = "m" }\n\n[tables.t]',
    )
    error = refusal(second)
    assert (error.key, "all of one wager unit" in error.expected) == ("meters.m.progressive", True)


def test_a_meter_linked_to_no_table_is_refused() -> None:
    text = SMALL + '\n[meters.orphan]\nprogressive = "p"\n'
    assert refusal(text).key == "meters.orphan.progressive"


def test_a_link_to_an_undefined_meter_names_the_link() -> None:
    text = SMALL.replace(
        "[tables.t]",
        '[tables.u]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "1.00"\n'
        'meters = { progressive = "m", five_card_progressive = "nope" }\n\n[tables.t]',
    )
    error = refusal(text)
    assert (error.key, "got 'nope'" in error.expected) == (
        "tables.u.meters.five_card_progressive",
        True,
    )


def test_a_mistyped_link_is_named_even_if_it_orphans_a_meter() -> None:
    error = refusal(
        SMALL.replace('meters = { progressive = "m" }', 'meters = { progressive = "n" }')
    )
    assert error.key == "tables.t.meters.progressive"


def test_invalid_toml_names_the_file_then_the_place_then_the_problem() -> None:
    error = refusal("[policy]\nenvy_holders = \n")
    assert str(error) == "small.toml: line 2, column 16: not valid TOML: invalid value"
    error = refusal("[policy")
    assert (error.source, error.key) == ("small.toml", "the end of the file")
    assert error.expected == "not valid TOML: expected ']' at the end of a table declaration"


def test_a_missing_section_is_named() -> None:
    assert refusal("").key == "progressives"


def test_activating_a_wrong_configuration_is_rejected_with_its_reason() -> None:
    # The floor records the refusal and keeps running without a configuration.
    outcome = given(PA).when(activate(SMALL.replace("seats = 7", "seats = 0"), "bad.toml"))
    outcome.then(rejected("bad.toml: tables.t.seats"))


def test_a_later_configuration_may_add_a_table_and_a_meter() -> None:
    # A new meter is seeded at activation ($1,000 for 1, 649a.12(e)(3)); live meters keep theirs.
    addition = (
        '[meters.tcp-progressive-b]\nprogressive = "pa-649a12e-A"\n\n'
        '[tables.tcp-9]\ngame = "three_card_poker"\nseats = 6\nwager_unit = "1.00"\n'
        'meters = { progressive = "tcp-progressive-b" }\n\n'
    )
    scenario = given(PA).events(correct("tcp-progressive", sub("5.00")))
    outcome = scenario.when(activate(PA.replace("[tables.tcp-1]", addition + "[tables.tcp-1]")))
    outcome.then(
        accepted(),
        meter_is("tcp-progressive-b", "1000.00"),
        meter_is("tcp-progressive", "1005.00"),
    )
    assert outcome.state.config_version == 2


def test_a_later_configuration_may_not_drop_a_live_meter() -> None:
    # A live meter's definition changes only at a safe point (industry practice, rules README).
    dropped = PA.replace(
        (
            '[meters.tcp-progressive-5]\nprogressive = "pa-649a12e-A"\n'
            'name = "$5 Three Card Poker Progressive"\n'
            'ceiling = "25000.00"\noverflow = "carry"\n'
        ),
        "",
    )
    dropped = dropped[: dropped.index("[tables.tcp-7]")]
    assert "tcp-progressive-5" not in dropped
    given(PA).when(activate(dropped)).then(rejected("'tcp-progressive-5' would vanish"))


def test_dropping_a_table_mid_round_leaves_the_round_voidable() -> None:
    # Rules README (industry practice): a configuration change applies only at a safe point.
    scenario = given(PA).events(*locked_round("tcp-8", "r1", wager(1, "progressive", "5.00")))
    without_tcp8 = PA[: PA.index("[tables.tcp-8]")]
    refusals = scenario.when(activate(without_tcp8)).rejections()
    if refusals:  # refusing the change until the round ends is one fix
        assert "tcp-8" in refusals[0].reason
    else:  # still accepting the round's own events is the other
        scenario.when(voided()).then(accepted(), meter_is("tcp-progressive-5", "5000.00"))


def test_the_silence_limit_defaults_to_30_seconds_and_may_be_set() -> None:
    assert load_floor_config(SMALL, "small.toml").communication.table_silence_limit_seconds == 30
    text = SMALL + "\n[communication]\ntable_silence_limit_seconds = 12\n"
    assert load_floor_config(text, "small.toml").communication.table_silence_limit_seconds == 12


@pytest.mark.parametrize("value", ["0", "-5", "1.5", '"30"', "true", "86401"])
def test_a_wrong_silence_limit_is_named(value: str) -> None:
    error = refusal(SMALL + f"\n[communication]\ntable_silence_limit_seconds = {value}\n")
    assert "communication.table_silence_limit_seconds" in str(error)
    assert "a whole number from 1 to 86400" in str(error)


def test_an_unknown_communication_key_is_named() -> None:
    error = refusal(SMALL + "\n[communication]\nsilence = 30\n")
    assert "communication.silence" in str(error)


def test_a_logged_configuration_is_parsed_once_per_digest_and_never_served_for_another_text() -> (
    None
):
    """Replay and restart look the parsed form up by digest (issue 12: re-parsing was 23% of a
    10,000-table restart); a record whose text differs under the same digest gets its own."""
    first = logged_config("digest-a", SMALL, "small.toml")
    assert logged_config("digest-a", SMALL, "small.toml") is first
    other = logged_config("digest-a", PA, "pa.toml")
    assert other is not first
    assert set(other.meters) == set(load_floor_config(PA, "pa.toml").meters) != set(first.meters)
