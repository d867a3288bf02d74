"""One open live stream (`Client`), the server-sent event text (`sse`) and the fan-out of a batch's
messages to the open streams (`broadcast`), for `streams.live.feed`.

A client is an asyncio queue on the server's event loop, filled from the engine's thread with
``call_soon_threadsafe``; one that falls ``limit`` messages behind is closed (its page reconnects
and gets a fresh snapshot), so a stuck sign cannot make the controller hold memory.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from enum import Enum
from typing import Literal

from streams.live.alerts import Row

Topic = Literal["meters", "activity"]
Message = tuple[Topic, str, str]  # topic, meter id ("" for all), SSE text


class Signal(Enum):
    """What `Client.next` answers instead of a message."""

    TIMEOUT = "timeout"
    CLOSED = "closed"


def sse(event: str, data: object) -> str:
    """One server-sent event (compact JSON has no newline, so one ``data:`` line)."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Client:
    """One open stream: filled from any thread, read on its own event loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        topic: Topic,
        meters: frozenset[str] | None,
        limit: int,
    ) -> None:
        self.loop, self.topic, self.meters, self.limit = loop, topic, meters, limit
        self.queue: asyncio.Queue[str | Signal] = asyncio.Queue()
        self.closed = False
        self.snapshot: Row = {}  # what the feed held when the client was registered

    def wants(self, meter_id: str) -> bool:
        """Whether a message about ``meter_id`` ("" for none in particular) is for this client."""
        return self.meters is None or not meter_id or meter_id in self.meters

    def offer(self, texts: Sequence[str]) -> None:
        """Queue ``texts`` (on the loop); close the client instead if it is too far behind."""
        if self.closed:
            return
        if self.queue.qsize() + len(texts) > self.limit:
            self.closed = True
            self.queue.put_nowait(Signal.CLOSED)
            return
        for text in texts:
            self.queue.put_nowait(text)

    async def next(self, timeout: float) -> str | Signal:
        """The next message, or TIMEOUT after ``timeout`` seconds, or CLOSED."""
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return Signal.TIMEOUT


def broadcast(clients: set[Client], messages: Sequence[Message]) -> None:
    """Hand each client its messages on its own loop; a client whose loop is closed (the server
    is gone) is dropped from ``clients``."""
    for client in list(clients):
        texts = [t for topic, m, t in messages if topic == client.topic and client.wants(m)]
        if not texts:
            continue
        try:
            client.loop.call_soon_threadsafe(client.offer, texts)
        except RuntimeError:
            clients.discard(client)
