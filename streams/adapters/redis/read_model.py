"""The live meter read model in Redis, for signage: one hash per meter and a change notification.

Layout (``prefix`` defaults to ``jackpot``)::

    {prefix}:meter:{meter_id}   hash   amount, reserve, ..., seq, updated_at, status (all strings)
    {prefix}:meters             pub/sub channel; each message is {"meter_id": "...", "seq": N}
    {prefix}:playability        hash   each meter's and table's playability (`playability_board`)
    {prefix}:readside:aggregates string the read side's surveillance aggregates, one JSON
                                       document (`streams.scaleout.readside.board`)

Every write is one Lua script (`PUBLISH_SCRIPT`), so compare-and-write is atomic: the stored ``seq``
is compared with the update's and the hash is replaced, and the notification sent, only when the
update is newer. A late or duplicate update (a redelivery, a republish after an outage) therefore
never overwrites a newer value, and signs are told only of real changes.

A sign that (re)connects must SUBSCRIBE first and then re-read the hashes (`read_all`), applying a
notification only if its ``seq`` is above what it read: reading first could miss a change made
between the read and the subscription.

Every Redis error is raised as `controller.model.errors.StoreUnavailable` (``from`` the cause).
Socket
timeouts are short and there is one immediate retry (for a connection Redis closed), never a
backoff: the caller is the ingest path, and it must not wait on signage.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self, cast
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.client import PubSub
from redis.retry import Retry

from controller.model.errors import StoreUnavailable
from streams.ports import MeterChange

SEQ_FIELD: Final = "seq"

#: KEYS[1] the meter's hash. ARGV[1] the update's seq, ARGV[2] the channel, ARGV[3] the
#: notification, ARGV[4..] field, value pairs ending with "seq", seq (so the stored seq is always
#: the one compared). DEL then HSET replaces the field set; a script is atomic, so no reader ever
#: sees the hash empty or half written. Seqs are compared as Lua numbers (exact below 2^53).
PUBLISH_SCRIPT: Final = """
local stored = redis.call('HGET', KEYS[1], 'seq')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
"""


def redact(url: str) -> str:
    """The URL without its credentials, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    host = parts.hostname or ""
    netloc = f"***@{host}:{parts.port}" if parts.port else f"***@{host}"
    return urlunsplit(parts._replace(netloc=netloc))


def add_redis_arguments(parser: argparse.ArgumentParser, url_help: str) -> None:
    """The read model's options, the same for ``jackpot serve`` and ``jackpot kafka signage``:
    ``--redis`` (default $REDIS_URL), ``--redis-password-file`` (default $REDIS_PASSWORD_FILE),
    ``--redis-prefix``."""
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL"), help=url_help)
    password_file = os.environ.get("REDIS_PASSWORD_FILE")  # the deploy manifests set it
    parser.add_argument(
        "--redis-password-file",
        type=Path,
        default=Path(password_file) if password_file else None,
        help="file holding the Redis password (default $REDIS_PASSWORD_FILE)",
    )
    parser.add_argument(
        "--redis-prefix",
        default=os.environ.get("JACKPOT_REDIS_PREFIX", "jackpot"),
        help="key prefix in Redis (default $JACKPOT_REDIS_PREFIX or 'jackpot')",
    )


def password_from(path: Path | None) -> str | None:
    """The password in ``--redis-password-file`` (None without one), surrounding blanks dropped."""
    return None if path is None else path.read_text(encoding="utf-8").strip()


class RedisReadModel:
    """`streams.ports.MeterReadModel` in Redis (hashes, a Lua compare-and-write, pub/sub)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "jackpot",
        password: str | None = None,
        socket_timeout: float = 0.5,
        connect_timeout: float = 0.25,
    ) -> None:
        """``password`` is used when ``url`` carries none (the URL's own password wins)."""
        self.prefix = prefix
        self.channel = f"{prefix}:meters"
        self._where = redact(url)
        self._client: redis.Redis = redis.Redis.from_url(
            url,
            password=password,
            decode_responses=True,
            socket_timeout=socket_timeout,
            socket_connect_timeout=connect_timeout,
            # One immediate retry re-dials a connection Redis dropped (a restart); no backoff,
            # so an outage costs the caller one connect timeout, not seconds.
            retry=Retry(NoBackoff(), 1),
        )
        self._script = self._client.register_script(PUBLISH_SCRIPT)

    def key(self, meter_id: str) -> str:
        """The hash that holds ``meter_id``."""
        return f"{self.prefix}:meter:{meter_id}"

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        """Replace the meter's hash with ``fields`` and ``seq`` and notify, unless the stored seq is
        newer or equal; True if stored."""
        notice = json.dumps({"meter_id": meter_id, "seq": seq}, separators=(",", ":"))
        args: list[str | int] = [seq, self.channel, notice]
        for name, value in fields.items():
            if name != SEQ_FIELD:
                args += [name, value]
        args += [SEQ_FIELD, seq]
        try:
            stored = self._script(keys=[self.key(meter_id)], args=args)
        except redis.RedisError as exc:
            raise self._unavailable("publish", exc) from exc
        return bool(stored)

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The meter's hash (including ``seq``), or None if it was never published."""
        try:
            # redis-py types the answer as sync-or-async; this client is sync.
            found = cast("dict[str, str]", self._client.hgetall(self.key(meter_id)))
        except redis.RedisError as exc:
            raise self._unavailable("read", exc) from exc
        return found or None

    def read_all(self, meter_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """The hashes of those ``meter_ids`` that exist, in one round trip."""
        pipe = self._client.pipeline(transaction=False)
        for meter_id in meter_ids:
            pipe.hgetall(self.key(meter_id))
        try:
            results: list[dict[str, str]] = pipe.execute()
        except redis.RedisError as exc:
            raise self._unavailable("read", exc) from exc
        return {m: found for m, found in zip(meter_ids, results, strict=True) if found}

    @property
    def playability_key(self) -> str:
        """Every meter's and table's playability (`streams.adapters.redis.playability_board`)."""
        return f"{self.prefix}:playability"

    def write_playability(self, fields: Mapping[str, str], *, replace: bool = False) -> bool:
        """Set ``fields`` of the playability hash (all of it, atomically, when ``replace``);
        True if it had no ``as_of`` before: a new or emptied Redis, so write it all again."""
        pipe = self._client.pipeline(transaction=True)
        pipe.hexists(self.playability_key, "as_of")
        if replace:
            pipe.delete(self.playability_key)
        mapping: dict[Any, Any] = dict(fields)  # redis-py's key and value unions are invariant
        pipe.hset(self.playability_key, mapping=mapping)
        try:
            answers: list[object] = pipe.execute()
        except redis.RedisError as exc:
            raise self._unavailable("write playability", exc) from exc
        return not answers[0]

    def read_playability(self) -> dict[str, str]:
        """The playability hash ({} if there is none)."""
        try:
            found = cast("dict[str, str]", self._client.hgetall(self.playability_key))
        except redis.RedisError as exc:
            raise self._unavailable("read playability", exc) from exc
        return found

    @property
    def aggregates_key(self) -> str:
        """The read side's aggregates document (`streams.scaleout.readside.board`)."""
        return f"{self.prefix}:readside:aggregates"

    def write_aggregates(self, document: str) -> None:
        """Replace the aggregates document (the read side writes the whole of it each time)."""
        try:
            self._client.set(self.aggregates_key, document)
        except redis.RedisError as exc:
            raise self._unavailable("write aggregates", exc) from exc

    def read_aggregates(self) -> str | None:
        """The aggregates document, or None if the read side never wrote one."""
        try:
            found = cast("str | None", self._client.get(self.aggregates_key))
        except redis.RedisError as exc:
            raise self._unavailable("read aggregates", exc) from exc
        return found

    def subscribe(self) -> MeterSubscription:
        """Change notifications from now on (subscribe before re-reading the hashes)."""
        # redis-py before 8.2 leaves ``pubsub`` unannotated (a strict call of it is an error),
        # 8.2 annotates it: read through a typed name, right under both.
        subscribe: Callable[..., PubSub] = self._client.pubsub
        pubsub = subscribe(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(self.channel)
        except redis.RedisError as exc:
            pubsub.close()
            raise self._unavailable("subscribe", exc) from exc
        return MeterSubscription(pubsub, self._where)

    def ping(self) -> bool:
        """Whether Redis answers (for a readiness check); never raises."""
        try:
            return bool(self._client.ping())
        except redis.RedisError:
            return False

    def close(self) -> None:
        """Release the connections."""
        self._client.close()

    def _unavailable(self, action: str, exc: redis.RedisError) -> StoreUnavailable:
        msg = (
            f"Redis read model at {self._where}: {action} failed ({type(exc).__name__}: {exc}); "
            "check that Redis is up and the password is right; the signage feed republishes "
            "the meters once it answers again"
        )
        return StoreUnavailable(msg)


class MeterSubscription:
    """Change notifications from one SUBSCRIBE; use as a context manager or call `close`."""

    def __init__(self, pubsub: PubSub, where: str) -> None:
        self._pubsub = pubsub
        self._where = where

    def get(self, timeout: float) -> MeterChange | None:
        """The next notification, waiting at most ``timeout`` seconds; None if none came."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = max(deadline - time.monotonic(), 0.0)
            try:
                message = self._pubsub.get_message(timeout=remaining)
            except redis.RedisError as exc:
                msg = f"Redis read model at {self._where}: subscription lost ({exc}); re-subscribe"
                raise StoreUnavailable(msg) from exc
            if message is not None and message.get("type") == "message":
                body = json.loads(message["data"])
                return MeterChange(meter_id=str(body["meter_id"]), seq=int(body["seq"]))
            if remaining <= 0.0:
                return None

    def __iter__(self) -> Iterator[MeterChange]:
        """Notifications forever (a sign's loop); raises StoreUnavailable if Redis goes away."""
        while True:
            change = self.get(timeout=1.0)
            if change is not None:
                yield change

    def close(self) -> None:
        """Unsubscribe and release the connection."""
        self._pubsub.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
