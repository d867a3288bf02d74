"""The read side's commit step waits for the changelog writes behind the offsets it commits
(`streams.scaleout.readside.transport`), without a broker: the step runs on a stand-in consumer
holding exactly what it touches."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from controller.model.errors import StoreUnavailable
from streams.scaleout.readside.transport import ChangelogWrites, _WrittenBeforeCommittedConsumer


@dataclass
class StandIn:
    """What `_commit_tps` uses of faust's consumer, recording what happened in order."""

    offsets: dict[str, int]
    writes: ChangelogWrites = field(default_factory=ChangelogWrites)
    steps: list[str] = field(default_factory=list)

    @property
    def app(self) -> Any:
        return SimpleNamespace(changelog_writes=self.writes)

    def _filter_committable_offsets(self, tps: Any) -> dict[str, int]:
        self.steps.append("offsets taken")
        return dict(self.offsets)

    async def _handle_attached(self, offsets: dict[str, int]) -> None:
        self.steps.append("attachments")

    async def _commit_offsets(self, offsets: dict[str, int], **_: Any) -> bool:
        self.steps.append(f"committed {sorted(offsets.items())}")
        return True

    async def crash(self, exc: BaseException) -> None:
        self.steps.append(f"crashed: {exc}")


def commit(stand_in: StandIn) -> Any:
    step = _WrittenBeforeCommittedConsumer._commit_tps
    return step(stand_in, (), True)  # type: ignore[arg-type]


def test_the_commit_waits_for_every_write_sent_before_the_offsets_were_taken() -> None:
    async def scenario() -> list[str]:
        stand_in = StandIn({"events-0": 41})
        loop = asyncio.get_running_loop()
        slow, fast = loop.create_future(), loop.create_future()
        stand_in.writes.track(slow)
        stand_in.writes.track(fast)
        task = asyncio.create_task(commit(stand_in))
        fast.set_result("acked")
        for _ in range(5):
            await asyncio.sleep(0)
        stand_in.steps.append("slow write acknowledged")
        slow.set_result("acked")
        assert await task is True
        assert not stand_in.writes.pending  # acknowledged writes are forgotten
        return stand_in.steps

    steps = asyncio.run(scenario())
    assert steps == [
        "offsets taken",
        "slow write acknowledged",
        "attachments",
        "committed [('events-0', 41)]",
    ]


def test_a_write_sent_after_the_offsets_were_taken_does_not_hold_the_commit() -> None:
    async def scenario() -> tuple[bool, int]:
        stand_in = StandIn({"events-1": 7})
        later = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(commit(stand_in))
        await asyncio.sleep(0)  # the step took its offsets (nothing pending) ...
        stand_in.writes.track(later)  # ... then the agent wrote for a record above them
        done = await asyncio.wait_for(task, timeout=5)
        return done, len(stand_in.writes.pending)

    assert asyncio.run(scenario()) == (True, 1)


@pytest.mark.parametrize("outcome", ["failed", "cancelled"])
def test_a_lost_write_crashes_the_app_and_commits_nothing(outcome: str) -> None:
    async def scenario() -> tuple[bool, list[str]]:
        stand_in = StandIn({"events-2": 3})
        write = asyncio.get_running_loop().create_future()
        stand_in.writes.track(write)
        if outcome == "failed":
            write.set_exception(OSError("broker gone"))
        else:
            write.cancel()
        return await commit(stand_in), stand_in.steps

    committed, steps = asyncio.run(scenario())
    assert committed is False
    assert steps[0] == "offsets taken"
    assert steps[1].startswith("crashed: a changelog write of the read side")
    assert not any(step.startswith("committed") for step in steps)


def test_nothing_to_commit_waits_for_nothing() -> None:
    async def scenario() -> tuple[bool, list[str]]:
        stand_in = StandIn({})
        stand_in.writes.track(asyncio.get_running_loop().create_future())  # never acknowledged
        return await asyncio.wait_for(commit(stand_in), timeout=5), stand_in.steps

    assert asyncio.run(scenario()) == (False, ["offsets taken"])


def test_acknowledged_raises_store_unavailable_for_a_failed_write() -> None:
    async def scenario() -> None:
        write = asyncio.get_running_loop().create_future()
        write.set_exception(RuntimeError("not leader"))
        await ChangelogWrites.acknowledged([write])

    with pytest.raises(StoreUnavailable, match="not leader"):
        asyncio.run(scenario())
