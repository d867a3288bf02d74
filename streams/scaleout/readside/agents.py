"""What runs inside the read side's faust app: the agent over the events topic and the timer.

`app.build` makes the parts and hands them here; each function registers one of faust's
callbacks (an agent, a timer) or makes the review both of them call. Kept apart from the
app's configuration so that each piece reads on its own: the intake keeps offset order
(`order`, `gaps`), the review judges and raises alerts, the timer reviews, publishes the
page's board and watches for a stall.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from streams.adapters.kafka.lag import CommittedRecord, CommittedRecords
from streams.adapters.prometheus.readside import ReadSideMetrics
from streams.codec import DEDUPE_HEADER
from streams.scaleout.readside.alerts import Alert
from streams.scaleout.readside.fold import Aggregator, Surveillance
from streams.scaleout.readside.gaps import GapGuard
from streams.scaleout.readside.order import TakenInOrder
from streams.scaleout.readside.ownership import Ownership
from streams.scaleout.readside.publish import BoardPublisher
from streams.scaleout.readside.stall import StallWatch, Waiting, check_stall, exit_stalled
from streams.scaleout.readside.transport import ReadSideApp

logger = logging.getLogger(__name__)

Review = Callable[[], Awaitable[None]]
"""The review the agent calls when an hour closes and the timer calls each tick."""


@dataclass
class Parts:
    """What the agent, the hole reads and the timer share inside one app."""

    surveillance: Surveillance
    aggregator: Aggregator
    reads: CommittedRecords  # the hole reads' consumer, closed with the app
    stall: StallWatch
    ownership: Ownership
    publisher: BoardPublisher | None
    metrics: ReadSideMetrics = field(init=False)

    def __post_init__(self) -> None:
        surveillance = self.surveillance
        self.metrics = ReadSideMetrics(lambda: surveillance.snapshot)

    def step(self, value: bytes | None, partition: int, offset: int) -> str:
        """One record applied (or skipped by its key's mark), counted, the stall watch told."""
        outcome = self.aggregator.take(value, partition, offset)
        self.stall.took()
        self.metrics.records.labels(outcome).inc()
        return outcome


def intake(app: ReadSideApp, parts: Parts, events: Any, review_now: Review) -> None:
    """The agent over the events topic, each record applied in offset order: what faust
    skipped before it is read from the broker and applied first (`order`, `gaps`); the
    commit follows the order kept here (`transport`)."""
    guard = GapGuard(parts.reads, parts.metrics.holes.inc)

    def fill(tp: Any, record: CommittedRecord) -> None:  # a record faust skipped, from a read
        parts.step(record[1], tp.partition, record[0])
        parts.metrics.filled.inc()

    def head(tp: Any) -> Any:  # the read side's own consumer (`transport`): a head, once sought
        consumer: Any = app.consumer
        return consumer.head_after_seek(tp)

    order = TakenInOrder(lambda: int(app.consumer_generation_id), head, guard.inside, fill)
    app.taken_in_order = order

    @app.agent(events)
    async def aggregate(stream: Any) -> None:
        async for event in stream.events():
            message = event.message
            await order.take(message.tp, message.offset)  # what faust skipped before it first
            outcome = parts.step(message.value, message.partition, message.offset)
            if outcome == "applied" and parts.surveillance.due(parts.aggregator):
                await review_now()  # an hour closed: checked now, even while catching up

    _ = aggregate


def reviewer(app: ReadSideApp, parts: Parts, alerts: Any) -> Review:
    """The review: whether this process owns every partition (the alerts judge hours only
    then), then each alert raised on ``alerts`` and counted."""

    async def review_now() -> None:
        whole = parts.ownership.check(app)
        parts.metrics.whole.set(1 if whole else 0)
        for alert in parts.surveillance.review(parts.aggregator, judge=whole):
            await _raise(alerts, alert)
            parts.metrics.alerts.labels(alert.table_id, alert.reason).inc()

    return review_now


def timer(
    app: ReadSideApp,
    parts: Parts,
    review_now: Review,
    *,
    tick_s: float,
    stall_exit_s: float,
    probe: Callable[[list[int]], Waiting],
) -> None:
    """Each tick: the review (hours that close while partitions are idle), the page's board
    from what it read, and the stall watch: the process exits for its supervisor when
    partitions it owns keep committed records untaken for ``stall_exit_s`` (0: never)."""
    ownership = parts.ownership

    @app.timer(interval=tick_s)  # type: ignore[untyped-decorator]
    async def review() -> None:
        await review_now()
        if parts.publisher is not None:
            await parts.publisher.publish_async(parts.surveillance, complete=ownership.whole)
        if stall_exit_s > 0:
            waiting = await check_stall(app, parts.stall, ownership.owned, probe)
            if waiting:
                exit_stalled(ownership.topic, waiting, stall_exit_s)

    _ = review


async def _raise(topic: Any, alert: Alert) -> None:
    """The alert record (key: the table; its id in the dedupe header), and a log line."""
    body = json.dumps(alert.to_json(), separators=(",", ":"), sort_keys=True).encode()
    headers = {DEDUPE_HEADER: alert.alert_id.encode()}
    await topic.send(key=alert.table_id.encode(), value=body, headers=headers)
    logger.warning(
        "readside alert %s: %s (contributed %d sub-units in %d round(s), usual %s)",
        alert.alert_id,
        alert.reason,
        alert.contributed_sub,
        alert.rounds,
        alert.to_json()["usual_sub"],
    )
