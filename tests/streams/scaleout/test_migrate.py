"""The changelog migration's copy (`streams.scaleout.migrate`) without a broker: each lane
restores from the copy what it restored from its old changelog, and nothing of the other's.

What a lane restores is computed here from `streams.scaleout.store` alone (its key tag and its
progress marks), not from the module under test.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from controller.model.errors import AdapterError
from streams.scaleout.migrate import copy_of, restored, retagged
from streams.scaleout.store import METER_TAG, ROUND_TAG, is_reserved, progress_key, untagged
from tests.strategies_changelog import PARTITIONS, changelog_records

Records = dict[tuple[int, bytes], bytes | None]


def lane_view(records: Records, tag: bytes) -> dict[tuple[int, object], bytes]:
    """What the lane whose keys carry ``tag`` restores: its keys' last values and its marks."""
    view: dict[tuple[int, object], bytes] = {}
    for (partition, key), value in records.items():
        if value is None:
            continue
        if is_reserved(key):
            marks = [p for p in range(PARTITIONS) if key == progress_key(p, tag)]
            if marks:
                view[(partition, ("mark", marks[0]))] = value
        elif (state_key := untagged(key, tag)) is not None:
            view[(partition, state_key)] = value
    return view


@given(changelog_records(), changelog_records())
def test_each_lane_restores_from_the_copy_what_it_restored_before(
    rounds: Records, meters: Records
) -> None:
    shared = {**copy_of(rounds, ROUND_TAG), **copy_of(meters, METER_TAG)}
    assert lane_view(shared, ROUND_TAG) == lane_view(rounds, b"")
    assert lane_view(shared, METER_TAG) == lane_view(meters, b"")


@given(changelog_records(), changelog_records())
def test_the_read_back_check_sees_one_lane_only(rounds: Records, meters: Records) -> None:
    shared = {**copy_of(rounds, ROUND_TAG), **copy_of(meters, METER_TAG)}
    assert restored(shared, ROUND_TAG) == restored(copy_of(rounds, ROUND_TAG), ROUND_TAG)
    assert restored(shared, METER_TAG) == restored(copy_of(meters, METER_TAG), METER_TAG)
    live = {k for k, v in rounds.items() if v is not None}
    assert len(restored(shared, ROUND_TAG)) == len(live)


def test_a_mark_is_renamed_for_its_lane() -> None:
    assert retagged(b"\x00next:3", ROUND_TAG) == b"\x00next:r/3"
    assert retagged(b"\x00next:12", METER_TAG) == b"\x00next:m/12"
    assert retagged(b"tcp-1", ROUND_TAG) == b"r/tcp-1"


@pytest.mark.parametrize("key", [b"\x00other", b"\x00next:", b"\x00next:r/1", b"\x00next:1x"])
def test_a_reserved_key_that_is_no_old_mark_is_refused(key: bytes) -> None:
    with pytest.raises(AdapterError, match="reserved key"):
        retagged(key, ROUND_TAG)
