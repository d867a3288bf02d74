"""A round's whole story for surveillance: every event of the round, both clocks.

An officer who opens a hit wants what led to it: the round opened, every wager and its lock, the
decisions, the settlement with the cards, the contributions, the awards with the meter before and
after, and the hit's validation and payment. `RoundStories` keeps the events of the last ``keep``
rounds seen live (a bounded memory, oldest round forgotten first), each with the time the
controller received it beside the device's own ``occurred_at``; validation and payment name only
a hit, so they are filed under the hit's round.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from controller.codec import event_to_dict
from controller.model.events import Event, HitPaid, HitValidated, ProgressiveHit

Row = dict[str, object]
RoundKey = tuple[str, str]


class RoundStories:
    """The events of the last ``keep`` rounds, by (table, round); not thread-safe (the feed
    calls it under its lock)."""

    def __init__(self, keep: int = 500) -> None:
        self._keep = keep
        self._rounds: OrderedDict[RoundKey, list[tuple[Event, str]]] = OrderedDict()
        self._round_of_hit: dict[str, RoundKey] = {}

    def add(self, events: Iterable[Event], received_at: str) -> None:
        """File each event of a durable batch under its round; ``received_at`` is the
        controller's clock when the batch was committed ("" when not known: a backfill)."""
        for event in events:
            key = self._key(event)
            if key is None:
                continue
            if isinstance(event, ProgressiveHit):
                self._round_of_hit[event.hit_id] = key
            held = self._rounds.get(key)
            if held is None:
                held = self._rounds[key] = []
                self._forget_oldest()
            held.append((event, received_at))

    def _key(self, event: Event) -> RoundKey | None:
        if isinstance(event, HitValidated | HitPaid):
            return self._round_of_hit.get(event.hit_id)
        table_id, round_id = getattr(event, "table_id", None), getattr(event, "round_id", None)
        if isinstance(table_id, str) and isinstance(round_id, str) and table_id and round_id:
            return table_id, round_id
        return None

    def _forget_oldest(self) -> None:
        while len(self._rounds) > self._keep:
            key, _ = self._rounds.popitem(last=False)
            for hit_id in [h for h, k in self._round_of_hit.items() if k == key]:
                del self._round_of_hit[hit_id]

    def story(self, table_id: str, round_id: str) -> Row | None:
        """Every event of the round in log order (None if it is not held)."""
        held = self._rounds.get((table_id, round_id))
        if held is None:
            return None
        rows = [{**event_to_dict(event), "received_at": at} for event, at in held]
        return {"table_id": table_id, "round_id": round_id, "events": rows}
