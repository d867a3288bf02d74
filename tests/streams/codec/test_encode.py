"""`encode` (msgspec where it cannot differ) writes exactly `reference_encode`'s bytes (`json`).

Every event type is built with arbitrary field values, text included (quotes, backslashes,
control characters, non-ASCII, lone surrogates), so the escapes the fast writer hands back to
`json` are exercised as well as the plain records it writes itself. Every type has a plan
(`streams.codec.writer`), so these compare the plans' dicts, not a fallback to the readable one.
"""

from __future__ import annotations

import json

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.codec import event_to_dict
from controller.model.events import DERIVED_EVENT_TYPES, AwardShare, EventRejected, ProgressiveHit
from controller.model.table_events import TABLE_EVENT_TYPES
from streams.codec import encode, reference_encode
from streams.codec.writer import PLANS
from tests.controller.fast.differential import disturbed_floor, run_both

EVENT_TYPES = sorted({*DERIVED_EVENT_TYPES.values(), *TABLE_EVENT_TYPES.values()}, key=str)
ANY_EVENT = st.one_of([st.builds(cls) for cls in EVENT_TYPES])


@settings(max_examples=600, deadline=None)
@given(ANY_EVENT)
def test_any_event_is_written_with_the_reference_bytes(event: object) -> None:
    assert encode(event) == reference_encode(event)  # type: ignore[arg-type]


def test_a_simulated_floor_log_is_written_with_the_reference_bytes() -> None:
    log = run_both(disturbed_floor(3_000, seed=11), check_every=10_000)[1]
    kinds = set()
    for event in log:
        written = encode(event)
        assert written == reference_encode(event)
        kinds.add(json.loads(written)["type"])
    assert {"wager_placed", "contribution_recorded", "round_settled", "progressive_hit"} <= kinds


ANY_TEXT = st.text(st.characters(blacklist_categories=()))  # surrogates and controls included
REJECTED = st.builds(EventRejected, event_id=ANY_TEXT, reason=ANY_TEXT, raw=ANY_TEXT)


@settings(max_examples=300, deadline=None)
@given(REJECTED)
def test_text_needing_escapes_is_written_with_the_reference_bytes(event: EventRejected) -> None:
    assert encode(event) == reference_encode(event)


def test_every_event_type_is_written_by_its_plan() -> None:
    assert set(PLANS) == set(EVENT_TYPES)


BIG = st.integers(min_value=-(2**80), max_value=2**80)


@settings(max_examples=300, deadline=None)
@given(
    st.builds(
        ProgressiveHit,
        amount_cents=BIG,
        meter_seq=BIG,
        reset=st.booleans(),
        winners=st.lists(st.builds(AwardShare, seat=BIG, amount_cents=BIG)).map(tuple),
    )
)
def test_big_numbers_and_award_shares_are_written_with_the_reference_bytes(
    event: ProgressiveHit,
) -> None:
    assert encode(event) == reference_encode(event)


@settings(max_examples=300, deadline=None)
@given(ANY_EVENT)
def test_a_plan_holds_the_readable_dicts_keys_and_values(event: object) -> None:
    """Beyond the bytes: the same keys (an omitted field stays omitted) and, tuples aside, the
    same values."""
    planned = msgspec.to_builtins(PLANS[type(event)](event))  # a struct's omitted fields left out
    readable = event_to_dict(event)  # type: ignore[arg-type]
    assert planned.keys() == readable.keys()
    assert json.loads(json.dumps(planned, default=_share)) == json.loads(json.dumps(readable))


def _share(value: object) -> object:
    assert isinstance(value, AwardShare)
    return {"seat": value.seat, "amount_cents": value.amount_cents}
