"""A batch of JSON lines decided on the door's structs: `decide_batch`'s answers, no dict.

`EmbeddedController.submit` converts each parsed item to the door's checked struct, then to a
frozen `TableEvent`, then decides and encodes it. For the four kinds that are ~96% of a floor's
lines (a round opened, a wager, the lock, a decision) this module decodes the line straight into
its struct (natively, `streams.native.hot_decoder`, with the record's payload from the same pass;
else `streams.door.fast_core.decode_vouched`), lets the session decide on the struct
(`controller.fast.hot`'s deciders) and logs the payload. No dict, no frozen event, unless
something reads it (a refusal's dead letter parses the line again; a listener gets `recorded`
events). Natively, without a scope and with a fixed session, one call walks a batch's common hot
lines (``src/hot_walk.rs``: decode, checks, decider, answer, record) and hands the rest back.

The checks and their order are `streams.embedded.batch`'s: the submitter's scope, the duplicate
check, the received-time bound, the core's verdict. A settlement, a void or a heartbeat is decided
on the frozen event its struct holds (`decide_checked`); a line the struct decode does not vouch
for is parsed and decided as `submit` decides it (`streams.embedded.parsed`).
``tests/streams/embedded/test_lines_differential.py`` holds `submit_lines` to the reference
`submit` over the parsed lines: same answers, records (bytes), state and liveness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, cast, final

import msgspec

from controller.fast import Session
from controller.fast.hot import Decider
from controller.model.events import ContributionRecorded
from controller.model.table_events import TableEventBase
from streams import native
from streams.codec import encode, record_key
from streams.codec.writer import Plan
from streams.door.contract_structs import RoundSettledStruct, RoundStruct
from streams.door.fast_core import DIRECT, Emitted, decode_vouched, recorded, settled_event
from streams.door.fast_decode import round_event, table_event
from streams.door.json_lines import parse_json_line
from streams.embedded.batch import (
    Context,
    Decided,
    answer_verdict,
    answered_before,
    decide_checked,
    fixed_session,
    new_answer,
    new_record,
)
from streams.embedded.intake import refuse
from streams.embedded.made import decoder, hot_kinds, walker
from streams.embedded.parsed import parsed_line
from streams.embedded.received import before_second, utc_second, vouched_ahead_reason

_WRITE: Final = msgspec.json.Encoder(order="sorted")  # `streams.codec.encode`'s writer
#: The native writer of a vouched hot line's payload (`streams.native`), if this process runs it.
_NATIVE: Final = native.payload_writer()
#: The native writer of a contribution's record, if this process runs it and the class still has
#: the fields it writes (``src/contribution.rs``).
_CONTRIBUTION: Final = native.contribution_writer(ContributionRecorded)
_CONTRIBUTED: Final = ContributionRecorded  # read a record, from a C static (`batch.new_record`)


#: The kinds decided on their struct: the session's decider and the record's plan (`made`).
_HOT: Final = hot_kinds(DIRECT)


#: ``(struct, payload, event_id, table_id, occurred_at)`` of a hot line the door vouches for,
#: natively (None: ask the door).
_DECODE: Final = decoder(_HOT)


#: ``walk(lines, start, ...)``: the batch's lines from ``start`` on, each common hot line
#: decided, answered and recorded natively, up to the first it hands back (``src/hot_walk.rs``).
_WALK: Final = walker(_HOT, _DECODE is not None, (new_answer, new_record))


def decide_lines(
    lines: list[bytes], names: Sequence[str], logged: dict[str, bytes] | None, ctx: Context
) -> Decided:
    """`decide_batch` of the lines' items (see the module's docstring); a line the reader
    refuses is named in its reason by ``names`` ("line 12" for the reader's "line"), if given.
    Without a scope and with a fixed session, the native walk takes the batch's common hot
    lines (`_WALK`) and hands the others back, one at a time, to `_line`."""
    out, seen, asked = Decided(), dict(logged or {}), logged is not None
    batch = (_Reread(b""), utc_second(ctx.latest), fixed_session(ctx))  # `_hot_line`'s
    session, walk, fast = batch[2], _WALK, _DECODE
    if walk is None or session is None or ctx.scope is not None:
        for index, line in enumerate(lines):
            decoded = None if fast is None else fast(line)
            name = names[index] if names else ""
            _line(out, line, decoded, name, seen, ctx=ctx, asked=asked, batch=batch)
        return out
    lists, index, size = (out.outcomes, out.records, out.events, out.heard), 0, len(lines)
    while True:
        index, decoded, decided, produced = walk(lines, index, session, seen, lists, batch[1],
                                                 ctx.now, ctx.quiet)  # fmt: skip
        if index >= size:
            return out
        line = lines[index]
        if decided and decoded is not None:  # decided natively, not accepted alone
            _walked(out, line, decoded, produced, seen, ctx=ctx, asked=asked, batch=batch)
        else:
            name = names[index] if names else ""
            _line(out, line, decoded, name, seen, ctx=ctx, asked=asked, batch=batch)
        index += 1


def _line(
    out: Decided,
    line: bytes,
    decoded: tuple[RoundStruct, bytes, str, str, str] | None,
    name: str,
    seen: dict[str, bytes],
    *,
    ctx: Context,
    asked: bool,
    batch: tuple[_Reread, str, Session | None],
) -> None:
    """One line of `decide_lines`, ``decoded`` the native decoder's answer for it (None: ask
    the door), ``name`` what a reader's refusal calls it."""
    hot = _HOT
    if decoded is None:
        struct = decode_vouched(line)
        entry = hot.get(type(struct))
        if struct is None:
            parsed_line(out, line, seen, ctx, asked=asked, name=name)
            return
        if entry is None:  # a settlement, a void or a heartbeat: decided on its frozen event
            settled = type(struct) is RoundSettledStruct  # its event built compiled
            command = settled_event(cast(Any, struct)) if settled else table_event(struct)
            decide_checked(out, _Reread(line), command, seen, ctx, asked=asked)
            return
        known = cast(RoundStruct, struct)  # a hot line the door decoded: its payload below
        heads, payload = (known.event_id, known.table_id, known.occurred_at), b""
    else:  # a hot line, read natively with its payload and head
        known, payload, event_id, table_id, occurred_at = decoded
        heads, entry = (event_id, table_id, occurred_at), hot[type(known)]
    if _refused(out, line, heads[1], ctx):
        return
    if decoded is None:  # written once the scope allows the line, not for nothing
        payload = _payload(line, known, entry[1])
    _hot_line(out, line, known, entry, seen, ctx=ctx, asked=asked, payload=payload, heads=heads,
              batch=batch)  # fmt: skip


def _walked(
    out: Decided,
    line: bytes,
    decoded: tuple[RoundStruct, bytes, str, str, str],
    produced: tuple[Emitted, ...] | None,
    seen: dict[str, bytes],
    *,
    ctx: Context,
    asked: bool,
    batch: tuple[_Reread, str, Session | None],
) -> None:
    """The rest of `_hot_line` for a line the walk decided but did not answer (refused, or
    more than its struct produced): ``produced`` its decider's answer (None: the reference
    decides and words it, as `_decide`)."""
    known, payload, event_id, table_id, _ = decoded
    raw, _, session = batch
    assert session is not None  # the walk runs with a fixed session only
    raw.line = line
    if produced is None:
        produced = session.reference(round_event(known))
    ids = (event_id, table_id, payload)
    _answered(out, raw, known, seen, ctx=ctx, asked=asked, ids=ids, verdict=("", produced),
              session=session)  # fmt: skip


@final
class _Reread:
    """``partial(parse_json_line, line)`` for a line decided on its struct: what a refusal's
    dead letter holds, parsed only if one is written. A class of its own because, compiled, it
    costs a fraction of `functools.partial` (~1k instructions an event less:
    bench/PROPOSALS.md); one a settlement line, one a batch for the hot lines (its line set)."""

    __slots__ = ("line",)

    def __init__(self, line: bytes) -> None:
        self.line = line

    def __call__(self) -> object:
        return parse_json_line(self.line)


def _refused(out: Decided, line: bytes, table_id: str, ctx: Context) -> bool:
    """Whether the submitter's scope refuses a hot line's table (`batch.decide_checked`'s first
    check): then it is dead-lettered with the line parsed, before anything else is done for it
    (its payload written, its id de-duplicated, its event decided)."""
    refusal = ctx.scope(table_id) if ctx.scope is not None else ""
    if refusal:
        out.add(*refuse(parse_json_line(line), refusal, ctx.clock), ctx.now)
    return bool(refusal)


def _hot_line(
    out: Decided,
    line: bytes,
    struct: RoundStruct,
    entry: tuple[Decider, Plan],
    seen: dict[str, bytes],
    *,
    ctx: Context,
    asked: bool,
    payload: bytes,
    heads: tuple[str, str, str],
    batch: tuple[_Reread, str, Session | None],
) -> None:
    """`batch.decide_item` of the line's item, on its struct, its scope already allowed
    (`_refused`; a refusal parses the line):
    ``payload`` its record's bytes, ``heads`` its ``event_id``, ``table_id`` and
    ``occurred_at`` (read once, by the native decoder when it ran), ``batch`` the batch's
    `_Reread` (pointed at this line: a refusal calls it at once and keeps only what it gives),
    `utc_second` of its ``ctx.latest`` and its `batch.fixed_session`."""
    decider = entry[0]
    raw, second, fixed = batch
    raw.line = line
    event_id, table_id, occurred_at = heads
    if answered_before(out, raw, seen, ctx, event_id=event_id, table_id=table_id, payload=payload):
        return
    before = before_second(occurred_at, second)  # else asked in full, as `_table_event` asks
    ahead = "" if before else vouched_ahead_reason(occurred_at, ctx.latest)
    session = ctx.session() if fixed is None else fixed
    produced = () if ahead else _decide(session, struct, decider)
    ids = (event_id, table_id, payload)
    _answered(out, raw, struct, seen, ctx=ctx, asked=asked, ids=ids, verdict=(ahead, produced),
              session=session)  # fmt: skip


def _answered(
    out: Decided,
    raw: _Reread,
    struct: RoundStruct,
    seen: dict[str, bytes],
    *,
    ctx: Context,
    asked: bool,
    ids: tuple[str, str, bytes],
    verdict: tuple[str, tuple[Emitted, ...]],
    session: Session,
) -> None:
    """`_hot_line`'s answer to the verdict on the struct (`batch.answer_verdict`) and, if
    accepted, its records: the struct's own from its payload (``ids``' third), then the rest."""
    produced = verdict[1]
    if answer_verdict(out, raw, seen, ctx, verdict=verdict, asked=asked, ids=ids):
        # `ctx.arm` gives nothing while the session's configuration is the quiet one (deciding
        # a table event replaces neither the session nor its configuration)
        quiet = ctx.quiet is not None and session.config is ctx.quiet
        armings = () if quiet else ctx.arm()
        logged = (*produced, *armings) if armings else produced  # no copy of a tuple for none
        start = 0
        if produced[0] is struct:  # its record from the payload, keyed by its table
            event_id, table_id, payload = ids
            out.records.append(new_record(table_id, payload, event_id, ctx.now))
            start = 1
        _log(out, logged, start, ctx.now)


def _decide(session: Session, struct: RoundStruct, decider: Decider) -> tuple[Emitted, ...]:
    """`Session.step` of the struct's event, decided on the struct (`fast_core.run_lines`)."""
    if session.pending:
        return session.step(round_event(struct))
    events = decider(session, struct)
    if events is not None:
        return events
    return session.reference(round_event(struct))  # refused or unusual: the reference words it


def _payload(line: bytes, struct: RoundStruct, plan: Plan) -> bytes:
    """`encode` of the struct's event: natively from the line when it is built and sure of its
    spelling (`streams.native`, ``src/hot_line.rs``), else its plan's record, or (an escape needed)
    the event's."""
    if _NATIVE is not None:
        written = _NATIVE(line)
        if written is not None:
            return written
    return _struct_payload(struct, plan)


def _struct_payload(struct: RoundStruct, plan: Plan) -> bytes:
    """`encode` of the struct's event: its plan's record, or (an escape needed) the event's."""
    out = _WRITE.encode(plan(struct))
    if out.isascii() and b"\\" not in out and b"\x7f" not in out:
        return out
    return encode(round_event(struct))


def _log(out: Decided, produced: tuple[Emitted, ...], start: int, now: str) -> None:
    """`batch._log` of what a hot line produced, from ``produced[start]`` on (the caller wrote
    the accepted struct's own record, if it is the first): each event's record, then all of
    ``produced`` to the events."""
    for index in range(start, len(produced)):
        event = produced[index]
        if type(event) is _CONTRIBUTED and _CONTRIBUTION is not None:
            written = _CONTRIBUTION(event)
            if written is not None:  # `record_key`: a contribution's meter (a str, if not "")
                key = event.meter_id or record_key(event)
                out.records.append(new_record(key, written, "", now))
                continue
        frozen = recorded(event)
        dedupe = frozen.event_id if isinstance(frozen, TableEventBase) else ""
        out.records.append(new_record(record_key(frozen), encode(frozen), dedupe, now))
    out.events.extend(produced)
