"""The pipelined batch protocol of `streams.scaleout.stage`, on fakes of faust and the producer.

What must hold whatever the broker's timing (the guarantees of `streams.scaleout.worker`): a batch's
state is stored only after its own outputs are acknowledged, batches store and commit in the
order they were decided, a commit follows its batch's store, events are acknowledged only after
their batch's commit, and a batch decided while an earlier one is unfinished sees that batch's
state.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from faust.types import TP

from streams.adapters.kafka.sink import Delivery
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.codec import Output
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.stage import Stage

TOPIC = "p.table-events"


@dataclass
class Message:
    key: bytes
    value: bytes
    topic: str
    partition: int
    offset: int
    timestamp: float = 0.0


@dataclass
class Event:
    message: Message


@dataclass
class World:
    """Everything the fakes did, in order, and the acknowledgements the test releases."""

    log: list[str] = field(default_factory=list)
    deliveries: list[tuple[Delivery, asyncio.Event]] = field(default_factory=list)


class Consumer:
    def __init__(self, world: World) -> None:
        self.world = world

    def assignment(self) -> set[TP]:
        return {TP(TOPIC, 0), TP(TOPIC, 1)}

    async def _commit_offsets(self, offsets: dict[TP, int]) -> None:
        for tp, offset in sorted(offsets.items()):
            self.world.log.append(f"commit {tp.partition}:{offset}")


class App:
    def __init__(self, world: World) -> None:
        self.consumer = Consumer(world)


class Table:
    def __init__(self, world: World) -> None:
        self.world, self.data = world, dict[bytes, bytes]()

    async def send_changelog(self, partition: int, key: bytes, value: bytes) -> None:
        self.world.log.append(f"store {key.decode(errors='replace')}={value.decode()}")


class Sink:
    """Acknowledges a batch's outputs only when the test sets its event."""

    def __init__(self, world: World) -> None:
        self.world = world

    def produce(self, outputs: list[Output]) -> Delivery:
        delivery = Delivery([])
        delivery.pending = len(outputs)
        self.world.log.append("produce " + ",".join(o.dedupe_id for o in outputs))
        self.world.deliveries.append((delivery, asyncio.Event()))
        return delivery

    async def wait(self, delivery: Delivery) -> None:
        (gate,) = [g for d, g in self.world.deliveries if d is delivery]
        await gate.wait()
        self.world.log.append("acked")


class Stream:
    """``stream.noack()``: events from a queue the test fills; acknowledgements logged."""

    def __init__(self, world: World) -> None:
        self.world, self.queue = world, asyncio.Queue[Event]()
        self.channel = self.queue  # faust's agent channel: what is waiting

    def noack(self) -> Stream:
        return self

    async def events(self) -> AsyncIterator[Event]:
        while True:
            yield await self.queue.get()

    async def ack(self, event: Event) -> None:
        self.world.log.append(f"ack {event.message.offset}")


def count(record: int | None, key: str | None, raw: bytes, pos: SourcePos) -> Processed[int]:
    """A processor whose state is the number of records seen for the key."""
    seen = (record or 0) + 1
    output = Output("p.events", key or "", raw, f"{key}{seen}")
    return Processed("accepted", seen, (output,))


def stage(world: World, depth: int) -> Stage[int]:
    return Stage[int](
        name="round",
        topic=TOPIC,
        app=App(world),  # type: ignore[arg-type]
        table=Table(world),
        process=count,
        codec=(lambda n: b"%d" % n, int),
        sink=Sink(world),  # type: ignore[arg-type]
        metrics=WorkerMetrics(),
        bootstrap="unused",
        depth=depth,
    )


def event(key: bytes, offset: int) -> Event:
    return Event(Message(key, b"x", TOPIC, 0, offset))


async def settle() -> None:
    """Let every task run until it waits for the test."""
    for _ in range(20):
        await asyncio.sleep(0)


async def scenario() -> list[str]:
    """Depth 2: batch 2 is decided while batch 1 waits for its acknowledgements."""
    world = World()
    stream = Stream(world)
    agent = asyncio.create_task(stage(world, depth=2).consume(stream, batch=10))
    for offset, key in enumerate([b"a", b"b"]):
        stream.queue.put_nowait(event(key, offset))
    await settle()  # batch 1 decided, waiting for its acknowledgements
    stream.queue.put_nowait(event(b"a", 2))
    await settle()  # batch 2 decided from batch 1's unstored state
    world.deliveries[1][1].set()  # batch 2's outputs acknowledged first
    await settle()
    world.deliveries[0][1].set()
    await settle()
    agent.cancel()
    return world.log


def test_batches_store_and_commit_in_order_after_their_own_acknowledgements() -> None:
    log = asyncio.run(scenario())
    assert log == [
        "produce a1,b1",
        "produce a2",  # decided before batch 1 finished: a's count continues from batch 1
        "acked",  # batch 1's: batch 2's outputs were acknowledged first, but wait their turn
        "store a=1",
        "store b=1",
        "store \x00next:0=2",
        "commit 0:2",
        "ack 0",
        "ack 1",
        "acked",
        "store a=2",
        "store \x00next:0=3",
        "commit 0:3",
        "ack 2",
    ]


async def unpipelined() -> list[str]:
    """Depth 1: nothing of batch 2 happens before batch 1 is finished."""
    world = World()
    stream = Stream(world)
    agent = asyncio.create_task(stage(world, depth=1).consume(stream, batch=10))
    stream.queue.put_nowait(event(b"a", 0))
    await settle()
    stream.queue.put_nowait(event(b"a", 1))
    await settle()
    log = list(world.log)
    world.deliveries[0][1].set()
    await settle()
    world.deliveries[1][1].set()
    await settle()
    agent.cancel()
    return [*log, "--", *world.log[len(log) :]]


def test_at_depth_one_a_batch_is_finished_before_the_next_is_taken() -> None:
    assert asyncio.run(unpipelined()) == [
        "produce a1",
        "--",
        "acked",
        "store a=1",
        "store \x00next:0=1",
        "commit 0:1",
        "ack 0",
        "produce a2",
        "acked",
        "store a=2",
        "store \x00next:0=2",
        "commit 0:2",
        "ack 1",
    ]
