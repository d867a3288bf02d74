"""`controller.ceiling.split_at_ceiling` over any meter and any amount (NY 5320.8, NJ
13:69E-1.39A): nothing is lost or invented, the meter never passes its ceiling, and it keeps as
much as fits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.ceiling import split_at_ceiling
from controller.config.floor import MeterDef, load_floor_config
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import MeterState
from tests.controller.scenario import PA

BASE = load_floor_config(PA, "floor.toml").meters["tcp-progressive"]


def definition(ceiling_cents: int | None, divert: bool) -> MeterDef:
    return MeterDef(
        meter_id=BASE.meter_id,
        progressive=BASE.progressive,
        unit_cents=BASE.unit_cents,
        ceiling_cents=ceiling_cents,
        divert_to="tcp-five-card" if divert and ceiling_cents is not None else "",
    )


@given(
    st.integers(0, 10**14),
    st.integers(0, 10**12),
    st.one_of(st.none(), st.integers(0, 10**8)),
    st.booleans(),
)
def test_the_split_adds_up_and_stops_at_the_ceiling(
    amount: int, arriving: int, ceiling_cents: int | None, divert: bool
) -> None:
    meter = MeterState(meter_id="m", amount_sub=amount)
    limits = definition(ceiling_cents, divert)
    kept, overflow, diverted = split_at_ceiling(meter, limits, arriving)
    assert min(kept, overflow, diverted) >= 0
    assert kept + overflow + diverted == arriving
    assert (overflow if divert else diverted) == 0
    if ceiling_cents is None:
        assert kept == arriving
        return
    ceiling = ceiling_cents * SUBUNITS_PER_CENT
    assert amount + kept <= max(amount, ceiling)  # never above the ceiling, never taken down
    if kept < arriving:
        assert amount + kept >= ceiling  # it kept all that fitted
