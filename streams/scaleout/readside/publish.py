"""The read side's board in Redis: after each timer review, the aggregates document
(`board.board_document`) replaces the one in Redis, where ``jackpot kafka pages`` reads it.

Redis is the pages' store, not the read side's: while it is away the read side goes on (its state
is its changelog) and says so once in the log, and once again when Redis is back; the page shows
the document's ``published_at`` so a stale board is visible there.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from controller.model.errors import StoreUnavailable
from streams.adapters.redis.read_model import RedisReadModel
from streams.scaleout.readside.board import board_document, board_text
from streams.scaleout.readside.fold import Surveillance

logger = logging.getLogger(__name__)


class BoardPublisher:
    """Writes the board to a `RedisReadModel`; remembers whether the last write failed."""

    def __init__(self, model: RedisReadModel) -> None:
        self.model = model
        self.failing = False
        self.published = 0

    def publish(self, surveillance: Surveillance, *, complete: bool) -> bool:
        """Write the board of the last review; whether Redis took it."""
        return self.write(board_of(surveillance, complete=complete))

    async def publish_async(self, surveillance: Surveillance, *, complete: bool) -> bool:
        """`publish`, the document made in the loop (it reads the review's state) and written
        off it (a Redis call blocks for up to its timeout)."""
        return await asyncio.to_thread(self.write, board_of(surveillance, complete=complete))

    def write(self, text: str) -> bool:
        """Replace the board in Redis with ``text``; whether Redis took it (logged once per
        outage)."""
        try:
            self.model.write_aggregates(text)
        except StoreUnavailable as exc:
            if not self.failing:
                logger.warning("readside: the aggregates board is not published: %s", exc)
            self.failing = True
            return False
        if self.failing:
            logger.info("readside: the aggregates board is published again")
        self.failing = False
        self.published += 1
        return True

    def close(self) -> None:
        self.model.close()


def board_of(surveillance: Surveillance, *, complete: bool) -> str:
    """The board of ``surveillance``'s last review, as Redis stores it."""
    document = board_document(
        surveillance.windows,
        surveillance.alerting,
        surveillance.watermark,
        datetime.now(UTC),
        complete=complete,
    )
    return board_text(document)
