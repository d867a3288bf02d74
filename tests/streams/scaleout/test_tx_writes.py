"""`Writes.outputs` (its produce calls made inline) makes the calls main's per-output `_send` made:
the same arguments in the same order, a full local queue waited out, the delivery callback of a
traced batch passed on."""

from __future__ import annotations

from typing import Any

import pytest

from streams.codec import DEDUPE_HEADER, Output
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import heard_output
from streams.scaleout.tx_writes import Writes


class Recording:
    """A producer that records its produce calls; full (BufferError) for the first ``full``."""

    def __init__(self, full: int = 0) -> None:
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.full, self.polls = full, 0

    def produce(self, *args: Any, **kwargs: Any) -> None:
        if self.full:
            self.full -= 1
            raise BufferError
        self.calls.append((args, kwargs))

    def poll(self, timeout: float) -> int:
        self.polls += 1
        return 0


OUTPUTS = [
    Output("p.events", "t1", b'{"a":1}', "e1"),
    heard_output("p.liveness", "t1", "event", "e1", SourcePos("p.table-events", 2, 9)),
    Output("p.awards", "t\u00e9", b"{}", "e1#0"),
]


def mains(producer: Recording, report: Any) -> None:
    """main's `Writes.outputs`: one `_send` per output."""
    writes = Writes(producer, {})  # type: ignore[arg-type]
    writes.report = report
    for out in OUTPUTS:
        headers = [(DEDUPE_HEADER, out.dedupe_id.encode())]
        writes._send(out.topic, out.key.encode(), out.value, headers=headers)


@pytest.mark.parametrize("report", [None, print], ids=["plain", "traced"])
@pytest.mark.parametrize("full", [0, 2])
def test_the_calls_are_mains(report: Any, full: int) -> None:
    ours, theirs = Recording(full), Recording(full)
    writes = Writes(ours, {})  # type: ignore[arg-type]
    writes.report = report
    writes.outputs(OUTPUTS)
    mains(theirs, report)
    assert ours.calls == theirs.calls
    assert len(ours.calls) == len(OUTPUTS)
    assert ours.polls == theirs.polls == full
