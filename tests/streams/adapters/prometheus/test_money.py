"""/metrics money counters are exact to the cent (issue 16: ``408.7999999999958``).

The totals are integers; each scrape divides once, so the text Prometheus reads is the exact
decimal. The float sum a plain Counter keeps drifts after a few thousand additions of 0.14.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, generate_latest

from streams.adapters.prometheus.money import MoneyCounter
from streams.adapters.prometheus.sensor import SUBUNITS_PER_DOLLAR
from tests.streams.adapters.prometheus.test_sensor import controller_with_sensor
from tests.streams.http.support import full_round


def exposed(counter: MoneyCounter, name: str, label: str) -> str:
    registry = CollectorRegistry()
    registry.register(counter)
    text = generate_latest(registry).decode()
    found = re.search(rf'^{name}_total{{[a-z]+="{re.escape(label)}"}} (\S+)$', text, re.M)
    assert found is not None, text
    return found.group(1)


def test_fourteen_cents_2920_times_is_408_dollars_80() -> None:
    drifting = 0.0
    counter = MoneyCounter("jackpot_contributed_dollars", "test", "meter", SUBUNITS_PER_DOLLAR)
    for _ in range(2920):  # a $1 wager at 14% (649a.12(e) paytable A), in sub-units
        counter.add("tcp-progressive", 14_000_000)
        drifting += 0.14
    assert drifting != 408.8  # what the old Counter showed: 408.7999999999958
    assert exposed(counter, "jackpot_contributed_dollars", "tcp-progressive") == "408.8"


@given(st.lists(st.integers(min_value=0, max_value=10**9), max_size=200))
def test_an_awarded_total_reads_as_its_exact_cents(amounts: list[int]) -> None:
    counter = MoneyCounter("jackpot_awarded_dollars", "test", "kind", 100, ["fixed"])
    for cents in amounts:
        counter.add("fixed", cents)
    text = exposed(counter, "jackpot_awarded_dollars", "fixed")
    assert Decimal(text) == Decimal(sum(amounts)) / 100


def test_a_counter_never_falls() -> None:
    counter = MoneyCounter("x", "test", "kind", 100)
    with pytest.raises(ValueError, match="only rises"):
        counter.add("fixed", -1)


def test_the_sensor_exposes_contributions_exactly() -> None:
    controller, sensor = controller_with_sensor()
    for n in range(30):  # 30 rounds of a $1 progressive at 14%: $4.20 exactly
        controller.submit(full_round(round_id=f"R{n}", start=1 + 6 * n))
    text = sensor.exposition().decode()
    assert 'jackpot_contributed_dollars_total{meter="tcp-progressive"} 4.2\n' in text
    assert 'jackpot_awarded_dollars_total{kind="fixed"} 0.0\n' in text
