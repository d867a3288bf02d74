"""The live feed's source on the Kafka engine: the Redis read model
(`streams.adapters.redis.read_model`).

`run_redis_pump` subscribes first and then re-reads every hash (a change made between the two is
seen twice at worst; `LiveFeed.put_meter` keeps only a newer ``seq``), then applies each change
notification; `publish_hash` turns a hash into a sign's row, and a rise of its ``hits`` count
into a hit (the table from ``last_hit_table`` when the hash has one). While Redis is away the
feed is marked down: its streams send faults instead of heartbeats, and every sign turns to its
stale fault instead of showing the last values as live.

Playability (loss of communication) comes from the board the Kafka signage projector writes
(`streams.adapters.redis.playability_board`): `watch_board` gives the feed a `PlayabilityWatch`
over a
`BoardReader`, so signs show NOT IN PLAY and surveillance gets its table alerts as on the embedded
engine. A stale or unreadable board reads as every table unplayable.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from controller.config.floor import FloorConfig
from controller.model.errors import StoreUnavailable
from streams.adapters.redis.playability_board import statuses_from
from streams.clock import wall_now
from streams.live.alerts import Row
from streams.live.feed import LiveFeed
from streams.live.playability import PlayabilityWatch
from streams.ports import HashSource, TableLiveness

logger = logging.getLogger(__name__)


def run_redis_pump(
    feed: LiveFeed,
    source: HashSource,
    meter_ids: Sequence[str],
    stop: threading.Event,
    *,
    retry_after: float = 1.0,
) -> None:
    """The Kafka engine's feed (run it in a daemon thread until ``stop`` is set): subscribe,
    re-read every hash, then apply each change; while Redis is away the feed is marked down."""
    wanted = frozenset(meter_ids)
    while not stop.is_set():
        try:
            changes = source.subscribe()
        except StoreUnavailable as exc:
            feed.source_down(str(exc))
            stop.wait(retry_after)
            continue
        try:
            for meter_id, hashed in source.read_all(meter_ids).items():
                publish_hash(feed, meter_id, hashed)
            feed.source_up()
            while not stop.is_set():
                change = changes.get(timeout=1.0)
                if change is None or change.meter_id not in wanted:
                    continue
                fields = source.read(change.meter_id)
                if fields is not None:
                    publish_hash(feed, change.meter_id, fields)
        except StoreUnavailable as exc:
            feed.source_down(str(exc))
            stop.wait(retry_after)
        finally:
            changes.close()


def publish_hash(feed: LiveFeed, meter_id: str, fields: Mapping[str, str]) -> bool:
    """Show a meter's hash (`streams.embedded.signage_feed.meter_fields`); whether it was newer."""
    label, subtitle = feed.label(meter_id)
    try:
        seq, hits = int(fields.get("seq", "")), int(fields.get("hits", "0"))
    except ValueError:
        logger.warning("live feed: meter %r has no whole seq/hits; not shown", meter_id)
        return False
    row: Row = {
        "meter_id": meter_id,
        "label": label,
        "subtitle": subtitle,
        "amount": fields.get("amount", "0.00"),
        "seq": seq,
        "hits": hits,
        "updated_at": fields.get("updated_at", ""),
    }
    old = feed.latest(meter_id)  # the pump is the only writer, so this is still current below
    hit: Row | None = None
    if old is not None and hits > int(str(old["hits"])):
        hit = {
            "meter_id": meter_id,
            "table_id": fields.get("last_hit_table", ""),
            "amount": fields.get("last_hit_amount", str(old["amount"])),
            "reset_amount": row["amount"],
            "seq": seq,
            "received_at": row["updated_at"],  # when the projector wrote the hit to Redis
        }
    return feed.put_meter(row, hit)


class BoardReader:
    """Table statuses from the playability board, as a tracker gives them (`StatusSource`)."""

    def __init__(
        self, read: Callable[[], Mapping[str, str]], wall: Callable[[], datetime] = wall_now
    ) -> None:
        self._read, self._wall = read, wall

    def statuses(self, config: FloorConfig | None) -> dict[str, TableLiveness]:
        """Every configured table's status now; Redis away reads as a missing board."""
        if config is None:
            return {}
        try:
            fields = self._read()
        except StoreUnavailable:
            fields = {}
        return statuses_from(fields, config, self._wall())


def watch_board(
    feed: LiveFeed,
    read: Callable[[], Mapping[str, str]],
    config: FloorConfig,
    wall: Callable[[], datetime] = wall_now,
) -> None:
    """Show the board's playability on ``feed`` (``read``: `RedisReadModel.read_playability`)."""
    reader = BoardReader(read, wall)
    feed.watch = PlayabilityWatch(lambda: reader, lambda: config)
