"""Local apply's one-step contribution (`streams.scaleout.contribute`) against the meter lane's
general steps (`MeterProcessor.local`), claim for claim: the same stored record (its changelog
bytes and its fields) and the same outputs (topic, key, value bytes, dedupe id), on meters with
no ceiling, a carried and a diverted ceiling, duplicates and a mystery level (answered None:
the general way). A worker using it against main's is ``test_claim_output.py``'s."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.floor import FloorConfig, load_floor_config
from controller.fast.meter_lane import next_meter
from controller.meter import ContributionClaim, seed_meter
from controller.model.state import MeterState
from streams.scaleout.contribute import Contributions
from streams.scaleout.meter_ops import meter_op
from streams.scaleout.meters import MeterProcessor, MeterRecord, meter_record_to_bytes
from tests.controller.scenario import PA
from tests.controller.test_mystery import MYSTERY
from tests.streams.scaleout.test_meter_ceiling import NAMES, PLAIN, floor

KEY = bytes(range(32))
FLOORS = {
    "plain": PA,
    "carry": floor('ceiling = "1000.20"\noverflow = "carry"'),
    "divert": floor('ceiling = "1000.20"\noverflow = "divert:tcp-five-card"'),
    "mystery": MYSTERY,
}
#: (table, seat, wager cents, primary, reserve) of one claim; a table seq that may go back
CLAIM = st.tuples(
    st.sampled_from(["tcp-1", "tcp-2"]),
    st.integers(1, 7),
    st.integers(1, 10_000),
    st.integers(0, 90_000_000),
    st.integers(0, 5_000_000),
)


def test_the_floors_are_what_the_cases_say() -> None:
    assert PLAIN in PA
    assert any(d.mystery for d in load_floor_config(MYSTERY, "f.toml").meters.values())


def claims_of(
    meter_id: str, drawn: list[tuple[str, int, int, int, int]], steps: list[int]
) -> list[tuple[ContributionClaim, int, int]]:
    """Each drawn claim with its table seq and step index (``steps``: how far each moves the
    table's seq, 0 or less for a repeat or an older one: a duplicate)."""
    out, seqs = [], {"tcp-1": 10, "tcp-2": 10}
    for number, ((table, seat, cents, primary, reserve), step) in enumerate(
        zip(drawn, steps, strict=False)
    ):
        seqs[table] += step
        claim = ContributionClaim(
            meter_id=meter_id,
            table_id=table,
            round_id=f"r{seqs[table]}",
            seat=seat,
            wager="progressive",
            on="own",
            wager_cents=cents,
            primary_sub=primary,
            reserve_sub=reserve,
            occurred_at="2026-01-01T00:00:00Z",
        )
        out.append((claim, seqs[table], number % 3))
    return out


def seeded(config: FloorConfig, meter_id: str) -> MeterRecord:
    """A meter as its provisioning seed leaves it (stamped at offset 41 of partition 3)."""
    empty = MeterState(meter_id=meter_id)
    meter = next_meter(empty, seed_meter(empty, config.meters[meter_id], "t0"))
    return MeterRecord(meter, {}, 3, 41)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(FLOORS)),
    drawn=st.lists(CLAIM, min_size=1, max_size=12),
    steps=st.lists(st.integers(-1, 3), min_size=12, max_size=12),
)
def test_each_claim_gives_what_local_gives(
    name: str, drawn: list[tuple[str, int, int, int, int]], steps: list[int]
) -> None:
    config = load_floor_config(FLOORS[name], "floor.toml")
    meters = MeterProcessor(config, NAMES, KEY)
    lean = Contributions(config, NAMES.events, NAMES.meter_claims)
    for meter_id in sorted(config.meters):
        ours = theirs = seeded(config, meter_id)
        for claim, seq, index in claims_of(meter_id, drawn, steps):
            got = lean.contributed(ours, claim, seq, index)
            op = meter_op(meter_id, "contribution", claim.table_id, seq, index, "t1", claim)
            done = meters.local(theirs, op, 3)
            assert done is not None
            assert done.record is not None
            if got is None:  # the general way's case: a duplicate, or a mystery level
                mark = theirs.marks.get(claim.table_id)
                duplicate = mark is not None and (seq, index) <= mark
                assert config.meters[meter_id].mystery or duplicate
                ours = theirs = done.record
                continue
            assert done.outcome == "applied"
            record, outputs = got
            assert record == done.record
            assert meter_record_to_bytes(record) == meter_record_to_bytes(done.record)
            assert [(o.topic, o.key, o.value, o.dedupe_id) for o in outputs] == [
                (o.topic, o.key, o.value, o.dedupe_id) for o in done.outputs
            ]
            ours, theirs = record, done.record


@pytest.mark.parametrize("name", ["plain", "carry", "divert"])
def test_a_plain_claim_takes_the_one_step(name: str) -> None:
    """The one step answers for the plain case (else the test above would compare nothing),
    a ceiling's divert included, and a claim at or below the table's mark is left to `local`."""
    config = load_floor_config(FLOORS[name], "floor.toml")
    lean = Contributions(config, NAMES.events, NAMES.meter_claims)
    record = seeded(config, "tcp-progressive")
    [(claim, seq, index)] = claims_of("tcp-progressive", [("tcp-1", 1, 500, 90_000_000, 7)], [1])
    got = lean.contributed(record, claim, seq, index)
    assert got is not None
    after, outputs = got
    assert after.marks == {"tcp-1": (seq, index)}
    assert len(outputs) == (2 if name == "divert" else 1)
    assert lean.contributed(after, claim, seq, index) is None
