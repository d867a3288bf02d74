"""The native walk's contract (``src/hot_walk.rs``), on stand-in deciders and session: what it
takes itself (a hot line accepted alone: the answer, the record, the struct, the id noted, the
table heard) and what it hands back, and in which state. `streams.embedded.lines` on the real
session is held to the reference by ``tests/streams/embedded/test_lines_differential.py``."""

from __future__ import annotations

from typing import Any

import pytest

from streams import native
from streams.door.hot_lines import hot_walker
from streams.embedded.batch import new_answer, new_record
from streams.embedded.intake import Outcome
from streams.ports import LogRecord
from tests.streams.native.forced import made_with

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")

OPENED = (
    b'{"event_id":"t1:1","game":"three_card_poker","occurred_at":"2026-11-29T12:00:01.533Z",'
    b'"round_id":"t1-R1","seq":1,"table_id":"t1","type":"round_opened"}'
)
WAGER = (
    b'{"amount":"25.00","event_id":"t1:2","occurred_at":"2026-11-29T12:00:03.806Z","on":"own",'
    b'"round_id":"t1-R1","seat":1,"seq":2,"table_id":"t1","type":"wager_placed","wager":"ante"}'
)
SETTLED = b'{"type":"round_settled","event_id":"t1:9"}'  # not a hot line: the door's to read
SECOND = "2026-11-29T12:01:00"  # both instants before it
QUIET = object()


class _Session:
    def __init__(self, *, pending: bool = False, config: object = QUIET) -> None:
        self.pending, self.config = pending, config


def _walk(answer: Any) -> tuple[native.HotWalker, list[Any]]:
    """A walk whose every decider answers ``answer(struct)``, and the calls it made."""
    calls: list[Any] = []

    def decide(session: object, struct: object) -> Any:
        calls.append(struct)
        return answer(struct)

    walk = made_with(BUILT, lambda: hot_walker((decide,) * 4, (new_answer, new_record)))
    return walk, calls


def _run(walk: native.HotWalker, lines: list[bytes], start: int = 0, **kw: Any) -> Any:
    lists: tuple[list[Any], ...] = ([], [], [], [])
    seen: dict[str, bytes] = kw.pop("seen", {})
    second: str = kw.pop("second", SECOND)
    handed = walk(lines, start, _Session(**kw), seen, lists, second, "now", QUIET)
    return handed, seen, lists


def test_a_line_accepted_alone_is_answered_recorded_and_noted() -> None:
    walk, calls = _walk(lambda struct: (struct,))
    (index, decoded, decided, produced), seen, lists = _run(walk, [OPENED, WAGER])
    assert (index, decoded, decided, produced) == (2, None, False, None)
    outcomes, records, events, heard = lists
    assert outcomes == [Outcome("t1:1", "accepted", ""), Outcome("t1:2", "accepted", "")]
    assert [type(r) for r in records] == [LogRecord, LogRecord]
    assert [(r.key, r.dedupe_id, r.received_at) for r in records] == [
        ("t1", "t1:1", "now"),
        ("t1", "t1:2", "now"),
    ]
    assert events == calls
    assert [seen[e.event_id] for e in events] == [r.payload for r in records]
    assert heard == ["t1", "t1"]


def test_what_the_walk_hands_back() -> None:
    walk, calls = _walk(lambda struct: None)  # the reference would decide: handed back decided
    (index, decoded, decided, produced), seen, lists = _run(walk, [OPENED, WAGER])
    assert (index, decided, produced) == (0, True, None)
    assert decoded is not None
    assert decoded[0] is calls[0]
    assert decoded[2:] == ("t1:1", "t1", "2026-11-29T12:00:01.533Z")
    assert seen == {}
    assert lists == ([], [], [], [])
    walk, calls = _walk(lambda struct: (struct, "more"))  # a lock's contributions
    assert _run(walk, [WAGER])[0][2:] == (True, (calls[0], "more"))


@pytest.mark.parametrize(
    ("lines", "kw", "at"),
    [
        ([WAGER, SETTLED], {}, 1),  # not a hot line: decoded None
        ([OPENED, WAGER], {"pending": True}, 0),
        ([OPENED, WAGER], {"config": object()}, 0),  # a loud configuration: arming to ask
        ([OPENED, WAGER], {"seen": {"t1:2": b"x"}}, 1),  # a retry: the duplicate check's
        ([OPENED, WAGER], {"second": "2026-11-29T12:00:02"}, 1),  # ahead: asked in full
        ([OPENED, "text"], {}, 1),
    ],
)
def test_lines_handed_back_undecided(lines: list[Any], kw: dict[str, Any], at: int) -> None:
    walk, calls = _walk(lambda struct: (struct,))
    (index, decoded, decided, produced), _, lists = _run(walk, lines, **kw)
    assert (index, decided, produced) == (at, False, None)
    assert len(calls) == len(lists[0]) == at  # decided and answered: only the lines before
    hot = lines[at] in (OPENED, WAGER)
    assert (decoded is not None) is hot
