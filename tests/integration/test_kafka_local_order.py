"""Local apply keeps each table's claims on a meter in order when the meter changes hands.

Workers ``a`` and ``b`` share a six-partition deployment while events flow fast; the one holding
more meter-claims partitions is killed (SIGKILL: its partitions move to the other only when its
6 s session expires). Meanwhile the survivor's tables keep writing claims on the dead worker's
meters to ``meter-claims``, where nobody applies them; then the survivor owns those meters and
decides its tables' next locks while that backlog is still being read. Applied locally at once,
a table's next claim would move the meter's mark past its claims still queued, which the meter
lane would then skip as redeliveries: the meters' contributions would fall short of `jackpot
replay`'s (`streams.scaleout.local_apply`: the ``owed`` claims keep such a claim on the topic
until the backlog is applied). With that check taken out the test failed in 2 of 3 runs
(``tcp-five-card`` contributed $294.42 against $346.92, one hit fewer; ``tcp-progressive``
$224.70 against $231.14): whether a table locks
again before its backlog is read depends on the fetches. ~1 minute.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import wait_caught_up
from tests.integration.test_kafka_rebalance import (
    _check_result,
    _holders,
    _signal,
    await_assignment,
    staged,
)

pytestmark = pytest.mark.integration

ROUNDS = 100
FEED_PER_S = 600  # a table locks again soon after the meters move


def test_a_meters_backlog_is_applied_before_a_tables_next_claim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap = require_kafka()
    events, names, workers, feeder = staged(
        tmp_path, bootstrap, "ab", rounds=ROUNDS, seed=1313, per_s=FEED_PER_S
    )
    try:
        workers["a"].start(slot="a")
        workers["b"].start(slot="b")
        feeder.start()
        held = await_assignment(bootstrap, names, _holders("a", "b"), "a and b")
        victim = max("ab", key=lambda slot: _claims_held(held[slot], names.meter_claims))
        survivor = "b" if victim == "a" else "a"
        assert any(topic == names.table_events for topic, _ in held[survivor]), held
        _signal(workers[victim], signal.SIGKILL)  # its meters' claims pile up for ~6 s
        await_assignment(bootstrap, names, _holders(survivor), f"{survivor} alone")
        mid_stream = feeder.sent < len(feeder.lines)
        feeder.join(timeout=180)
        assert feeder.error is None, feeder.error
        wait_caught_up(workers[survivor], timeout=180)
    finally:
        for worker in workers.values():
            worker.stop()
    assert mid_stream, "the input ran out before b's partitions moved: raise ROUNDS"
    _check_result(bootstrap, names, events)
    with capsys.disabled():  # the split: which partitions the survivor had of each topic
        split = {
            slot: sorted(f"{t.rsplit('.', 1)[1]}[{p}]" for t, p in tps)
            for slot, tps in held.items()
        }
        print(f"\nkafka local order: {split}, {victim} killed; {len(feeder.lines)} lines")


def _claims_held(held: set[tuple[str, int]], claims: str) -> int:
    return sum(1 for topic, _ in held if topic == claims)
