"""The stall watch's clock: it asks for the probe only after `limit_s` of settled, owning quiet,
and a quiet floor (nothing waiting) is never a stall."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streams.scaleout.readside.stall import EXIT_STALLED, StallWatch, stall_message

LIMIT = 10.0

# one tick of the timer: seconds since the previous tick, records taken, owning, settled;
# mostly quiet, owning and settled ticks, so that long stretches are common
Tick = tuple[float, int, bool, bool]
mostly = st.integers(min_value=0, max_value=7).map(bool)
ticks = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=6).map(float),
        st.sampled_from((0, 0, 0, 0, 1, 2)),
        mostly,
        mostly,
    ),
    max_size=40,
)


def test_the_probe_is_due_only_after_the_limit_of_quiet() -> None:
    watch = StallWatch(LIMIT)
    assert not watch.due(0.0, owning=True, settled=True)  # the stretch starts
    assert not watch.due(9.9, owning=True, settled=True)
    assert watch.due(10.0, owning=True, settled=True)


def test_a_record_a_rebalance_or_owning_nothing_starts_the_stretch_again() -> None:
    watch = StallWatch(LIMIT)
    watch.due(0.0, owning=True, settled=True)
    watch.took()
    assert not watch.due(8.0, owning=True, settled=True)  # a record at 8: quiet from 8
    assert not watch.due(17.0, owning=True, settled=True)
    assert not watch.due(18.0, owning=True, settled=False)  # a rebalance: from 18
    assert not watch.due(27.0, owning=True, settled=True)
    assert not watch.due(28.0, owning=False, settled=True)  # owns nothing: from 28
    assert watch.due(38.0, owning=True, settled=True)


def test_a_quiet_floor_is_not_a_stall_and_waiting_records_are() -> None:
    watch = StallWatch(LIMIT)
    watch.due(0.0, owning=True, settled=True)
    assert watch.due(10.0, owning=True, settled=True)
    assert not watch.confirm(10.0, {})  # nothing waiting: caught up, start again
    assert not watch.due(19.0, owning=True, settled=True)
    assert watch.due(20.0, owning=True, settled=True)
    assert watch.confirm(20.0, {2: (41, 43)})


@given(ticks)
def test_due_means_the_last_stretch_of_settled_owning_quiet_reached_the_limit(
    run: list[Tick],
) -> None:
    """Worked out independently: walk the ticks and remember when the current stretch of
    (no record, owning, settled) ticks began (the first tick begins one)."""
    watch = StallWatch(LIMIT)
    now, began = 0.0, 0.0
    for index, (gap, records, owning, settled) in enumerate(run):
        now += gap
        for _ in range(records):
            watch.took()
        if index == 0 or records or not owning or not settled:
            began = now
        assert watch.due(now, owning=owning, settled=settled) == (now - began >= LIMIT)


def test_the_log_line_says_what_was_seen_and_the_exit_code() -> None:
    line = stall_message("floor.events", {2: (41, 43), 0: (-1, 0)}, 60.0)
    assert "partitions 0 (committed -1, a record at 0), 2 (committed 41, a record at 43) of" in line
    assert "of floor.events" in line
    assert f"exiting with {EXIT_STALLED}" in line
    assert "60 s" in line
