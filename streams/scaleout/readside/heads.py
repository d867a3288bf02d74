"""The head of a partition of the events topic: its first offset not committed. faust's commit
may pass it untaken; these are the read side's own rules for it, used by its consumer
(`transport`) and its agent (`order`): what the head is after a seek, and which read offsets to
keep then."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from faust.types import TP

SEEK_POLL_S = 0.05  # how often the agent looks whether the seek it waits for is done


def heads_after_seek(
    committed: Mapping[TP, int | None], earliest: Mapping[TP, int]
) -> dict[TP, int]:
    """Per partition, the first offset not taken after a seek (the *head*): the group's
    committed offset, or the partition's first offset where the group has none (a fresh group
    reads from the beginning) or retention deleted past it."""
    return {tp: max(offset or 0, earliest.get(tp, 0)) for tp, offset in committed.items()}


def read_offsets_after_seek(
    heads: Mapping[TP, int], delivered: Mapping[TP, int | None]
) -> dict[TP, int | None]:
    """The read offsets faust keeps after a seek to ``heads``: the offset of the last record
    taken, one below the head (faust drops every record at or below its read offset, so one
    left from before the seek would drop the records sought again). Below a head of 0 or 1,
    none (faust reads a read offset of 0 as none). The agent holds the first record to the
    head itself (`order`) either way.

    faust delivers records while it seeks (its recovery resumes the partitions first), so a
    partition may have ``delivered`` records of this assignment by then: its read offset stays
    at the last of them (its records up to there were taken), or faust would deliver them
    again."""

    def last_taken(tp: TP, head: int) -> int | None:
        below = head - 1 if head > 1 else None
        taken = delivered.get(tp)
        if taken is None or below is None:
            return below if taken is None else taken
        return max(taken, below)

    return {tp: last_taken(tp, head) for tp, head in heads.items()}


class ReadOffsets(dict[TP, int | None]):
    """faust's read offsets (per partition, the last offset delivered; None: none), each
    stamped with the group's generation when set. faust drops them at a revoke, but a record
    in hand then sets its own afterwards: that one says nothing of what the new generation
    delivered, and kept over the seek it would make faust drop the records sought again."""

    def __init__(self, generation: Callable[[], int]) -> None:
        super().__init__()
        self.generation = generation
        self.stamps: dict[TP, int] = {}

    def __missing__(self, tp: TP) -> None:
        return None  # faust's defaultdict(lambda: None), without storing the key

    def __setitem__(self, tp: TP, offset: int | None) -> None:
        super().__setitem__(tp, offset)
        self.stamps[tp] = self.generation()

    def set_in(self, tp: TP, generation: int) -> int | None:
        """The read offset of ``tp`` if a delivery of ``generation`` set it, else None."""
        return self.get(tp) if self.stamps.get(tp) == generation else None
