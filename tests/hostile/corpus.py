"""A corpus of hostile table-event input, for every door events come in by (HTTP now, Kafka later).

Each `Hostile` is one thing a device (or an attacker posing as one) might send: the exact bytes
(`Hostile.payload`), a fragment of the reason it must be refused with, and the events that must
have been accepted before it for it to be wrong (a wager is only "after the lock" once a round
is locked). `where` says which layer refuses it:

- ``"body"``: the bytes never become an event (not UTF-8, not strict JSON, too deep, too big);
  over HTTP the whole request is answered 400/413, on a stream the one message is refused;
- ``"event"``: the contract ``schemas/table-event.v1.json`` refuses the event;
- ``"core"``: a well-formed event the rules refuse (unknown table, seq going backwards, ...).

A door answers each with a reason containing `Hostile.expect`; the line decoder
(`streams.door.validation.parse_json_line`, the Kafka door) may word a body-level refusal
differently
and then `Hostile.line_expect` is what it must say. Nothing in the corpus may ever be accepted.
Dict bodies whose ``event_id`` is `MINE` get ``"hostile:<name>"``, so dead letters are easy to
match to their item.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

Event = dict[str, object]
Where = Literal["body", "event", "core"]
MINE: Final = "<the item's own event id>"
TABLE: Final = "tcp-1"  # a three_card_poker table with 7 seats, wager unit 1.00 (example floor)
DEALER: Final = ("Jc", "7d", "8h")


@dataclass(frozen=True, slots=True, kw_only=True)
class Hostile:
    """One hostile input and how it must be refused."""

    name: str
    body: bytes | object  # bytes are sent as they are; anything else as UTF-8 JSON
    expect: str
    where: Where
    before: tuple[Event, ...] = ()
    line_expect: str | None = None

    def payload(self) -> bytes:
        """The exact bytes to send."""
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body, ensure_ascii=False, allow_nan=False).encode("utf-8")

    @property
    def line_reason(self) -> str:
        """What the line decoder's refusal must contain."""
        return self.line_expect or self.expect


def ev(seq: int, kind: str, **fields: object) -> Event:
    """A table event at `TABLE`; ``event_id`` defaults to "ctx:<seq>" (context events)."""
    return {
        "event_id": f"ctx:{seq}",
        "type": kind,
        "table_id": TABLE,
        "round_id": "R1",
        "seq": seq,
        "occurred_at": f"2026-11-29T16:{seq // 60:02d}:{seq % 60:02d}Z",
        **fields,
    }


def mine(seq: int, kind: str, **fields: object) -> Event:
    """The hostile event itself (its event id is filled in from the item's name)."""
    return ev(seq, kind, **fields) | {"event_id": MINE}


def _wagers(seat: int, seq: int) -> tuple[Event, ...]:
    return (
        ev(seq, "wager_placed", seat=seat, wager="ante", amount="1.00"),
        ev(seq + 1, "wager_placed", seat=seat, wager="progressive", amount="1.00"),
    )


OPENED: Final = (ev(1, "round_opened", game="three_card_poker"),)
#: R1 open, seat 1 wagered an Ante and the $1 progressive, wagers locked: the meter was funded.
LOCKED: Final = (*OPENED, *_wagers(1, 2), ev(4, "wagers_locked"))
PLAYED: Final = (*LOCKED, ev(5, "decision", seat=1, action="play", amount="1.00"))
TWO_PLAYED: Final = (
    *OPENED,
    *_wagers(1, 2),
    *_wagers(2, 4),
    ev(6, "wagers_locked"),
    ev(7, "decision", seat=1, action="play", amount="1.00"),
    ev(8, "decision", seat=2, action="play", amount="1.00"),
)
SETTLED: Final = (
    *PLAYED,
    ev(6, "round_settled", dealer=list(DEALER), community=[], seats={"1": ["2c", "5d", "9h"]}),
)


def settle(seq: int, seats: dict[str, list[str]], dealer: Sequence[str] = DEALER) -> Event:
    """A hostile settlement of R1."""
    return mine(seq, "round_settled", dealer=list(dealer), community=[], seats=seats)


def _opened(**fields: object) -> Event:
    return mine(1, "round_opened", game="three_card_poker") | fields


def _wager(**fields: object) -> Event:
    """Seat 1's hostile $1 progressive wager in the open round (use with before=OPENED)."""
    return mine(2, "wager_placed", seat=1, wager="progressive", amount="1.00") | fields


def _heartbeat(**fields: object) -> Event:
    """A contract version 2 heartbeat from the table (no round, no seq)."""
    beat: Event = {"event_id": MINE, "type": "heartbeat", "table_id": TABLE}
    return beat | {"occurred_at": "2026-11-29T16:00:00Z", "schema_version": 2} | fields


def _raw_event(*fields: bytes) -> bytes:
    """A round_opened written by hand, with extra raw members (for what json.dumps cannot say)."""
    head = (
        b'{"event_id":"hostile:raw","type":"round_opened","table_id":"tcp-1","round_id":"R1",'
        b'"seq":1,"occurred_at":"2026-11-29T16:00:01Z","game":"three_card_poker"'
    )
    return b",".join((head, *fields)) + b"}"


_VALID: Final = _raw_event()
_AMOUNT: Final = "is not a positive whole number of cents"
_SEAT: Final = "is not a seat number"
_SEQ: Final = "is not a sequence number"
_TABLE_ID: Final = "is not a table id"
_ROUND_ID: Final = "is not a round id"
_DATE: Final = "is not an RFC 3339 date-time"
_CARD: Final = "is not a card like"
_TWICE: Final = "appears twice in the settlement"
_DEEP: Final = "nested deeper than"


def _body(name: str, body: bytes, expect: str, line_expect: str | None = None) -> Hostile:
    return Hostile(name=name, body=body, expect=expect, where="body", line_expect=line_expect)


def _event(
    name: str,
    body: object,
    expect: str,
    line_expect: str | None = None,
    before: tuple[Event, ...] = (),
) -> Hostile:
    return Hostile(
        name=name,
        body=_named(name, body),
        expect=expect,
        where="event",
        before=before,
        line_expect=line_expect,
    )


def _core(name: str, body: Event, expect: str, before: tuple[Event, ...] = ()) -> Hostile:
    return Hostile(name=name, body=_named(name, body), expect=expect, where="core", before=before)


def _named(name: str, body: object) -> object:
    if isinstance(body, dict) and body.get("event_id") == MINE:
        return body | {"event_id": f"hostile:{name}"}
    return body


_TEN_MB: Final = 10 * 1024 * 1024

BODIES: Final = (
    _body("malformed-json", b'{"event_id": "x", ', "malformed JSON"),
    _body("empty-body", b"", "malformed JSON"),
    _body("not-utf8-latin1", _VALID.replace(b'"R1"', b'"R\xe91"'), "not UTF-8"),
    _body("not-utf8-overlong-slash", _raw_event(b'"x":"\xc0\xaf"'), "not UTF-8"),
    _body("not-utf8-encoded-surrogate", _raw_event(b'"x":"\xed\xa0\x80"'), "not UTF-8"),
    _body("utf16-body", _VALID.decode().encode("utf-16"), "not UTF-8"),
    _body("utf8-bom", b"\xef\xbb\xbf" + _VALID, "BOM"),
    _body("nul-after-the-object", _VALID + b"\x00", "malformed JSON"),
    _body("raw-nul-inside-a-string", _VALID.replace(b'"R1"', b'"R\x001"'), "malformed JSON"),
    _body("two-objects-in-one-body", _VALID + b"\n" + _VALID, "malformed JSON"),
    _body("comment", b"/* hi */" + _VALID, "malformed JSON"),
    _body("single-quotes", b"{'type': 'round_opened'}", "malformed JSON"),
    _body("trailing-comma", _raw_event(b'"x":1,'), "malformed JSON"),
    _body("duplicate-key", _raw_event(b'"game":"lunar_poker"'), "appears more than once"),
    _body("duplicate-key-nested", b'{"seats": {"1": ["As"], "1": ["Kd"]}}', "more than once"),
    _body("nan", _raw_event(b'"amount":NaN'), "NaN is not JSON"),
    _body("infinity", _VALID.replace(b'"seq":1', b'"seq":Infinity'), "Infinity is not JSON"),
    _body("minus-infinity", _VALID.replace(b'"seq":1', b'"seq":-Infinity'), "-Infinity is not"),
    _body("nested-10k-arrays", b"[" * 10_000 + b"]" * 10_000, _DEEP),
    _body("nested-10k-objects", b'{"a":' * 10_000 + b"1" + b"}" * 10_000, _DEEP),
    _body("nested-40-in-a-field", _raw_event(b'"x":' + b"[" * 40 + b"]" * 40), _DEEP),
    _body(
        "string-10mb",
        _raw_event(b'"x":"' + b"A" * _TEN_MB + b'"'),
        "over the limit",
    ),
    _body(
        "array-100k",
        b"[" + b"0," * 99_999 + b"0]",
        "100000 events is over the limit of 5000",
        line_expect="over the limit of 65536 bytes",
    ),
    _body("seq-with-5000-digits", _VALID.replace(b'"seq":1', b'"seq":' + b"9" * 5000), "digits"),
    _body("top-level-string", b'"round_opened"', "got str", line_expect="got a string"),
    _body("top-level-null", b"null", "got null"),
    _body("top-level-true", b"true", "got bool", line_expect="got a boolean"),
    _body(
        "envelope-with-an-extra-key",
        b'{"events": [' + _VALID + b'], "by": "me"}',
        'exactly {"events": [...]}',
        line_expect="required field is missing",
    ),
    _body(
        "envelope-of-an-object",
        b'{"events": {"0": ' + _VALID + b"}}",
        'exactly {"events": [...]}',
        line_expect="required field is missing",
    ),
)

EVENTS: Final = (
    _event("amount-fraction-of-a-cent", _wager(amount="1.005"), _AMOUNT),
    _event("amount-negative", _wager(amount="-1.00"), _AMOUNT),
    _event("amount-zero", _wager(amount="0.00"), _AMOUNT),
    _event("amount-exponent", _wager(amount="1e2"), _AMOUNT),
    _event("amount-leading-space", _wager(amount=" 1.00"), _AMOUNT),
    _event("amount-trailing-newline", _wager(amount="1.00\n"), _AMOUNT),
    _event("amount-json-number", _wager(amount=1.0), _AMOUNT),
    _event("amount-fullwidth-digits", _wager(amount="\uff11.\uff10\uff10"), _AMOUNT),
    _event("amount-arabic-indic-digits", _wager(amount="\u0661.\u0660\u0660"), _AMOUNT),
    _event("amount-over-a-billion", _wager(amount="1000000000.00"), _AMOUNT),
    _event("seat-0", _wager(seat=0), _SEAT),
    _event("seat-99", _wager(seat=99), _SEAT),
    _event("seat-as-a-string", _wager(seat="1"), _SEAT),
    _event("seat-true", _wager(seat=True), _SEAT),
    _event("seat-fraction", _wager(seat=1.5), _SEAT),
    _event("seq-negative", _opened(seq=-1), _SEQ),
    _event("seq-over-2-to-the-53", _opened(seq=2**53), _SEQ),
    _event("seq-as-a-string", _opened(seq="1"), _SEQ),
    _event("seq-overflowing-to-infinity", _VALID.replace(b'"seq":1', b'"seq":1e400'), _SEQ),
    _event("event-id-empty", _opened(event_id=""), "is not an event id"),
    _event("event-id-129-characters", _opened(event_id="e" * 129), "is not an event id"),
    _event("table-id-unicode-hyphen", _opened(table_id="tcp\u20101"), _TABLE_ID),
    _event("table-id-cyrillic-es", _opened(table_id="t\u0441p-1"), _TABLE_ID),
    _event("table-id-fullwidth", _opened(table_id="\uff54\uff43\uff50-1"), _TABLE_ID),
    _event("table-id-trailing-newline", _opened(table_id="tcp-1\n"), _TABLE_ID),
    _event("table-id-nul", _opened(table_id="tcp-1\x00"), _TABLE_ID),
    _event("round-id-rtl-override", _opened(round_id="R1\u202e"), _ROUND_ID),
    _event("round-id-zero-width-space", _opened(round_id="R\u200b1"), _ROUND_ID),
    _event("wager-name-dotless-i", _wager(wager="progress\u0131ve"), "is not a wager name"),
    _event("type-key-in-cyrillic", {"t\u0443pe": "round_opened"}, "required field is missing"),
    _event("type-unknown", _opened(type="jackpot_hit"), "is not one of the event types"),
    _event("type-wrong-case", _opened(type="Round_Opened"), "is not one of the event types"),
    _event("schema-version-3", _opened(schema_version=3), "is not schema version 1"),
    _event(
        "heartbeat-without-version",
        {k: v for k, v in _heartbeat().items() if k != "schema_version"},
        "heartbeat.schema_version: required field is missing",
    ),
    _event("heartbeat-version-1", _heartbeat(schema_version=1), "is not schema version 2"),
    _event("heartbeat-with-a-seq", _heartbeat(seq=9), "heartbeat.seq: unknown field"),
    _event("heartbeat-with-a-round", _heartbeat(round_id="R1"), "heartbeat.round_id: unknown"),
    _event("occurred-at-february-30", _opened(occurred_at="2026-02-30T00:00:00Z"), _DATE),
    _event("occurred-at-leap-second", _opened(occurred_at="2026-12-31T23:59:60Z"), _DATE),
    _event("occurred-at-without-offset", _opened(occurred_at="2026-11-29T16:00:00"), _DATE),
    _event("extra-field", _opened(jackpot="now"), "unknown field"),
    _event("proto-key", _opened(__proto__={"admin": True}), "unknown field"),
    _event("key-of-10k-characters", _opened(**{"k" * 10_000: 1}), "unknown field"),
    _event("missing-field", {k: v for k, v in _opened().items() if k != "game"}, "missing"),
    _event("unknown-game", _opened(game="blackjack"), "is not one of the games"),
    _event("card-1s", settle(6, {"1": ["1s", "Kd", "Qh"]}), _CARD),
    _event("card-11h", settle(6, {"1": ["11h", "Kd", "Qh"]}), _CARD),
    _event("card-suit-x", settle(6, {"1": ["Ax", "Kd", "Qh"]}), _CARD),
    _event("card-with-nul", settle(6, {"1": ["A\x00", "Kd", "Qh"]}), _CARD),
    _event("card-repeated-in-a-hand", settle(6, {"1": ["As", "As", "Kd"]}), "different cards"),
    _event("seats-key-0", settle(6, {"0": ["As", "Kd", "Qh"]}), "is not a seat number"),
    _event("event-as-a-number", [42], "got an integer", line_expect="got an array"),
    _event("event-as-a-string", ["round_opened"], "got a string", line_expect="got an array"),
    _event(
        "event-id-100k-characters",
        _opened(event_id="e" * 100_000),
        "is not an event id",
        line_expect="over the limit of 65536 bytes",
    ),
)

CORE: Final = (
    _core("unknown-table", _opened(table_id="tcp-99"), "unknown table 'tcp-99'"),
    _core("heartbeat-unknown-table", _heartbeat(table_id="tcp-99"), "unknown table 'tcp-99'"),
    _core("game-the-table-does-not-deal", _opened(game="lunar_poker"), "plays three_card_poker"),
    _core("seat-8-at-a-7-seat-table", _wager(seat=8), "does not exist at table", OPENED),
    _core("wager-after-lock", _wager(seq=5, seat=2), "wager after wagers_locked", LOCKED),
    _core("progressive-off-the-unit", _wager(amount="5.00"), "differs from the meter's", OPENED),
    _core("progressive-on-the-dealer", _wager(on="dealer"), "cannot be placed on", OPENED),
    _core("unknown-wager", _wager(wager="jackpot"), "is not offered at table", OPENED),
    _core("second-open-round", _opened(seq=5, round_id="R2"), "is still locked", LOCKED),
    _core("seq-backwards", mine(3, "decision", seat=1, action="fold"), "is not after", LOCKED),
    _core("seq-repeated", mine(4, "decision", seat=1, action="fold"), "is not after", LOCKED),
    _core("round-id-reused", _opened(seq=7), "already used by the table's last round", SETTLED),
    _core("decision-before-lock", mine(4, "decision", seat=1, action="play"), "locked", OPENED),
    _core("decision-without-ante", mine(5, "decision", seat=3, action="play"), "no ante", LOCKED),
    _core(
        "play-not-the-ante",
        mine(5, "decision", seat=1, action="play", amount="2.00"),
        "ante",
        LOCKED,
    ),
    _core("settle-a-round-never-opened", settle(6, {"1": ["As", "Kd", "Qh"]}), "no round"),
    _core(
        "settle-another-round",
        settle(6, {"1": ["As", "Kd", "Qh"]}) | {"round_id": "R9"},
        "current round",
        PLAYED,
    ),
    _core(
        "duplicate-card-across-seats",
        settle(9, {"1": ["As", "Kd", "Qh"], "2": ["As", "2c", "3d"]}),
        _TWICE,
        TWO_PLAYED,
    ),
    _core("ten-as-10h-and-th", settle(6, {"1": ["10h", "Th", "2c"]}), _TWICE, PLAYED),
    _core(
        "same-card-upper-and-lower-suit",
        settle(6, {"1": ["AS", "Kd", "Qh"]}, ("As", "7d", "8h")),
        _TWICE,
        PLAYED,
    ),
    _core("card-in-dealer-and-seat", settle(6, {"1": ["Jc", "Kd", "Qh"]}), _TWICE, PLAYED),
    _core(
        "four-cards-in-three-card-poker",
        settle(6, {"1": ["As", "Kd", "Qh", "2c"]}),
        "has 4 cards",
        PLAYED,
    ),
    _core(
        "cards-for-a-seat-that-did-not-wager",
        settle(6, {"1": ["As", "Kd", "Qh"], "5": ["2c", "3c", "4c"]}),
        "cards given for seats",
        PLAYED,
    ),
    _core(
        "void-after-settlement",
        mine(7, "round_voided", reason="oops"),
        "void after settlement",
        SETTLED,
    ),
    _core(
        "replayed-event-id-other-content",
        mine(5, "decision", seat=1, action="play", amount="1.00") | {"event_id": "ctx:3"},
        "event_id 'ctx:3'",
        LOCKED,
    ),
)

#: Free text fields the contract leaves open (event_id, a void's reason), given what the issue
#: names hostile: NUL, bidi overrides, and a lone surrogate written as a JSON escape.
FREE_TEXT: Final = (
    _event("event-id-nul", _opened(event_id="hostile:\x00"), "event id"),
    _event("event-id-rtl-override", _opened(event_id="hostile:\u202e1:pct"), "event id"),
    _event(
        "void-reason-nul",
        mine(5, "round_voided", reason="misdeal\x00"),
        "reason",
        before=LOCKED,
    ),
    Hostile(
        name="event-id-lone-surrogate",
        body=_VALID.replace(b'"hostile:raw"', b'"hostile:\\ud800"'),
        expect="surrogate",
        where="body",
    ),
    Hostile(
        name="table-id-lone-surrogate",
        body=_VALID.replace(b'"tcp-1"', b'"tcp-\\udfff"'),
        expect="surrogate",
        where="body",
    ),
    Hostile(
        name="void-reason-lone-surrogate",
        body=json.dumps(
            _named("void-reason-lone-surrogate", mine(5, "round_voided", reason="misdeal \udfff"))
        ).encode(),
        expect="surrogate",
        where="body",
        before=LOCKED,
    ),
)

CORPUS: Final[tuple[Hostile, ...]] = (*BODIES, *EVENTS, *CORE, *FREE_TEXT)


def by_name(name: str) -> Hostile:
    """One item of the corpus."""
    return next(item for item in CORPUS if item.name == name)


#: Sequence numbers one stage of `staged` may use at `TABLE`.
STAGE_SEQS: Final = 100
#: What a staged item is refused with where a table with a history words it differently: a
#: settlement of a round never opened names the table's (closed) current round, not "no round".
STAGED_EXPECT: Final = {"settle-a-round-never-opened": "but the table's current round is"}


@dataclass(frozen=True, slots=True)
class Staged:
    """A "core" item placed on a long stream where `TABLE` already has a history (`staged`)."""

    context: tuple[bytes, ...]  # the item's `Hostile.before`, renamed for the stage
    payload: bytes  # the item itself, renamed the same way
    closing: tuple[bytes, ...]  # what ends the round again: a void, or nothing
    expect: str  # `Hostile.expect` with the renamed ids


def staged(item: Hostile, stage: int) -> Staged:
    """``item`` as stage ``stage`` (1, 2, ...) of one stream through a single log.

    A core item is only wrong *after* its context (``before``), which assumes a fresh table; on
    one stream every item shares `TABLE`. Each stage therefore moves seqs up by ``stage *
    STAGE_SEQS``, suffixes round ids and the context's ``ctx:`` event ids with ``.s<stage>``
    (a round id and an event id may each be used once), and voids the round its context left in
    play, so the next stage again starts at a table with no round. The item's meaning is kept:
    a seq going backwards still goes backwards, a reused id is still the context's id.
    """
    if item.where != "core" or not isinstance(item.body, dict):
        msg = f"{item.name}: only core items (dict bodies) depend on the table's history"
        raise ValueError(msg)
    context = tuple(_stage(event, stage) for event in item.before)
    played = item.before and item.before[-1]["type"] != "round_settled"
    void = ev(STAGE_SEQS - 1, "round_voided", reason="end of the stage")
    return Staged(
        context=tuple(_json(event) for event in context),
        payload=_json(_stage(item.body, stage)),
        closing=(_json(_stage(void, stage)),) if played else (),
        expect=STAGED_EXPECT.get(item.name, item.expect).replace("'ctx:", f"'ctx.s{stage}:"),
    )


def _stage(event: Event, stage: int) -> Event:
    out = dict(event)
    seq, round_id, event_id = out.get("seq"), out.get("round_id"), out.get("event_id")
    if isinstance(seq, int):
        out["seq"] = seq + stage * STAGE_SEQS
    if isinstance(round_id, str):
        out["round_id"] = f"{round_id}.s{stage}"
    if isinstance(event_id, str) and event_id.startswith("ctx:"):
        out["event_id"] = f"ctx.s{stage}:{event_id[4:]}"
    return out


def _json(event: Event) -> bytes:
    return json.dumps(event, ensure_ascii=False, allow_nan=False).encode("utf-8")
