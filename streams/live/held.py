"""What the live feed keeps for surveillance: the last activity rows and every hit not yet paid.

The recent rows are a bounded window, but an open hit must stay on the surveillance page until it
is paid however busy the floor is, so open hits are kept apart from the window, keyed by hit id
and updated in place as their status moves (a ``paid`` status removes the hit). Kept apart from
`streams.live.feed`, which decides *when* a row is remembered (a batch, a backfill, a playability
change); this module says *what* remembering a row does. Not thread-safe on its own: the feed
calls it under its lock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from controller.model.state import HitState
from streams.live.alerts import Row

__all__ = ["HeldActivity"]


class HeldActivity:
    """The last ``recent`` activity rows (oldest first) and the hits not yet paid."""

    def __init__(self, recent: int) -> None:
        self.recent: deque[Row] = deque(maxlen=recent)
        self.open_hits: dict[str, Row] = {}

    def remember(self, row: Row) -> None:
        """Add ``row`` to the window; a hit opens, a status change updates it, paid closes it."""
        self.recent.append(row)
        hit_id = str(row.get("hit_id", ""))
        if row["kind"] == "hit":
            self.open_hits[hit_id] = row
        elif row["kind"] == "hit_status" and row["status"] == "paid":
            self.open_hits.pop(hit_id, None)
        elif row["kind"] == "hit_status" and hit_id in self.open_hits:
            self.open_hits[hit_id] = {**self.open_hits[hit_id], "status": row["status"]}

    def still_open(self, hits: Iterable[HitState]) -> None:
        """Hits pending since before the backfilled tail: only the state knows them, so each is
        shown bare (no cards or amounts), unless the tail already showed it in full."""
        for hit in hits:
            if hit.status != "paid" and hit.hit_id not in self.open_hits:
                self.open_hits[hit.hit_id] = _bare_hit(hit.hit_id, hit.meter_id, hit.status)

    def snapshot(self) -> Row:
        """The window and the open hits, as a stream opens with them."""
        hits = list(self.open_hits.values())
        return {"recent": list(self.recent), "open_hits": hits}


def _bare_hit(hit_id: str, meter_id: str, status: str) -> Row:
    return {"kind": "hit", "hit_id": hit_id, "meter_id": meter_id, "status": status}
