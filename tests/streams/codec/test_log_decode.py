"""The fast record reader gives `decode`'s answer: the same event for every record a simulated
floor logs, and for damaged records either the same event or the same error."""

from __future__ import annotations

import json
from itertools import islice

from hypothesis import given, settings
from hypothesis import strategies as st

from streams.codec import decode, encode
from streams.codec.log_decode import fast_decode
from tests.controller.fast.differential import disturbed_floor, run_both

LOG = run_both(islice(disturbed_floor(4_000, seed=9), 4_200), check_every=10_000)[1]
PAYLOADS = [encode(event) for event in LOG]


def _outcome(read: object, payload: bytes) -> object:
    try:
        return read(payload)  # type: ignore[operator]
    except Exception as exc:
        return (type(exc), str(exc))


def test_every_logged_record_reads_the_same() -> None:
    kinds = {json.loads(p)["type"] for p in PAYLOADS}
    assert {"wager_placed", "decision", "contribution_recorded", "progressive_hit"} <= kinds
    for payload in PAYLOADS:
        assert fast_decode(payload, decode) == decode(payload)


DAMAGE: st.SearchStrategy[object] = st.sampled_from(
    [True, 1.5, -1, "", "x", None, [], {}, ["As", 3], 10**30, "1.005"]
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PAYLOADS), st.data())
def test_a_damaged_record_reads_the_same_or_fails_the_same(
    payload: bytes, data: st.DataObject
) -> None:
    raw = json.loads(payload)
    key = data.draw(st.sampled_from([*sorted(raw), "extra"]), label="key")
    if data.draw(st.booleans(), label="drop") and key in raw:
        del raw[key]
    else:
        raw[key] = data.draw(DAMAGE, label="value")
    damaged = json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()
    assert _outcome(lambda p: fast_decode(p, decode), damaged) == _outcome(decode, damaged)
