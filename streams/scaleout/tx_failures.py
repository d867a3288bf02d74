"""How a failed money transaction ends (`streams.scaleout.txloop`): what the loop raises once
the transaction is aborted, and which of those it can go on from in place.

- `Migrated`: the group moved to a new generation while the batch was in flight (or another
  error that allows going on, `streams.adapters.kafka.transactions.migration`): recovered in
  place (`Ownership.recover`).
- `Fenced`: another owner (member or producer) took over what the batch wrote: the worker
  rebuilds from the changelogs.
- anything else: StoreUnavailable, a rebuild too (the consumer is past records whose batch never
  committed).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.transactions import MIGRATION_CODES, error_text, fencing, migration
from streams.scaleout.batch import Where
from streams.scaleout.ownership import listed


class Fenced(StoreUnavailable):
    """The broker refused this worker's transaction because another member (or producer) now
    owns what it wrote: nothing of the batch is visible; rebuild from the changelogs."""


class Migrated(StoreUnavailable):
    """The group coordinator refused the batch's offsets because the group moved to a new
    generation while it was in flight (a rebalance; Kafka Streams' TaskMigratedException): the
    transaction is aborted and the producer still usable. `TxLoop.step` recovers in place
    (`Ownership.recover`); should it escape, the worker rebuilds (a StoreUnavailable)."""

    def __init__(self, message: str, partitions: list[Where]) -> None:
        super().__init__(message)
        self.partitions = partitions


def failure(
    exc: Exception, records: int, touched: Sequence[Where], abort_failed: bool
) -> StoreUnavailable:
    """What to raise for a transaction that failed with ``exc`` and was then aborted:
    `Migrated` when the abort went through (not ``abort_failed``) and the error allows going on
    in place, `Fenced` when the broker says another owner took over, else StoreUnavailable (a
    failure that is no Kafka error too: a rebuild, as for an unknown Kafka error)."""
    in_place = migration(exc)
    if in_place is not None and not abort_failed:
        how = "migrated" if in_place.code() in MIGRATION_CODES else "aborted in place"
        msg = f"{how}: {error_text(exc)}; {records} record(s) of {listed(touched)} aborted"
        return Migrated(msg, list(touched))
    fenced = fencing(exc)
    if fenced is not None:
        msg = f"fenced: {error_text(exc)}; {records} record(s) aborted, none visible"
        return Fenced(msg)
    msg = f"transaction failed: {error_text(exc)}; {records} record(s) aborted"
    return StoreUnavailable(msg)
