"""The claims this worker's tables left in ``meter-claims``, per meter: what a local apply on that
meter must not jump ahead of.

Local apply (`streams.scaleout.local_apply`) hands a table's claim straight to its meter when the
worker owns the meter. A claim of ANOTHER table on the same meter may still wait in the topic:
written while this worker did not own the meter, or by the tables' previous owner (a rebalance,
a zombie's partitions taken over). Applied here, the newer claim would reach the meter first and
a hit would be priced without the older one: the meter's order no longer the order the rounds
were locked in, and with one table-events partition no longer `jackpot replay`'s, though no cent
is lost (the CI's zombie test caught it: one progressive award $1.82 short, the next one that much
over). A hit is priced from the meter as it stands, 649a.12(e)(4), and "as it stands" must hold
every contribution of a wager locked before it that this worker knows of.

Every claim a table writes to the topic is in its record as ``owed`` (per meter, its last one:
the round lane keeps it for the per-table order), so the claims of this worker's tables still
queued on meter ``m`` are the ``owed`` entries on ``m`` that ``m``'s marks have not reached. This
index holds them by meter, so the check is one dict lookup while nothing is queued (a worker that
owns its meters writes no claim). It is rebuilt from the table records whenever the state it was
built from is not the state any more (a partition assigned, revoked, restored after an aborted
batch: `Ownership` puts a new `PartitionState` there), so what a dropped or aborted batch added or
cleared never outlives it; between rebuilds it follows the batches as they are decided.

Claims of tables another worker owns are not known here: with several table-events partitions
the order across them is the interleaving of their workers' commits (docs/kafka.md, *Parity*).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import is_
from typing import Any

Where = tuple[str, int]
Claim = tuple[int, int]  # (table seq, step index), as a meter's mark per table


class QueuedClaims:
    """Per meter, per table: the last claim the table wrote to the topic, not yet seen applied."""

    def __init__(self, claims_topic: str) -> None:
        self._topic = claims_topic
        #: The queued claims by meter, then table: one dict for good (cleared, never replaced),
        #: so local apply may keep it and ask ``meter_id in`` it before calling `none_before`.
        self.by_meter: dict[str, dict[str, Claim]] = {}
        self._basis: list[Any] = []  # the `PartitionState`s the index was built from

    def follow(self, states: Mapping[Where, Any]) -> None:
        """Rebuilt from ``states``' table records if they are not those it was built from (asked
        at each `streams.scaleout.batch.decide`, a batch's first and those `more` adds)."""
        basis = self._basis
        if len(basis) == len(states) and all(map(is_, basis, states.values())):
            return
        self._basis = list(states.values())
        self.by_meter.clear()
        for where, state in states.items():
            if where[0] == self._topic:
                continue  # a meter partition: no table records
            for key, record in state.records.items():
                for meter_id, seq, index in record.owed:
                    self.wrote(meter_id, key.decode("utf-8", "replace"), (seq, index))

    def wrote(self, meter_id: str, table_id: str, claim: Claim) -> None:
        """A table's claim on the meter went to the topic."""
        queued = self.by_meter.get(meter_id)
        if queued is None:
            queued = self.by_meter[meter_id] = {}
        queued[table_id] = claim

    def none_before(self, meter_id: str, marks: Mapping[str, Claim] | None) -> bool:
        """Whether every claim queued on the meter is applied, by the meter's ``marks`` (its
        last applied claim per table; None: the meter has no record yet). Those applied are
        forgotten."""
        queued = self.by_meter.get(meter_id)
        if queued is None:
            return True
        if marks is None:
            return False
        for table_id, claim in list(queued.items()):
            mark = marks.get(table_id)
            if mark is None or mark < claim:
                return False
            del queued[table_id]
        del self.by_meter[meter_id]
        return True
