"""Table events as JSON lines, written plainly and oddly, for tests of the ways a line gets in.

`line` writes an event as the simulator does (compact, sorted keys). `ODD_LINES` are other ways to
write the same event, or a damaged one, each a plain function of the contract dict (so a seeded
`random.Random` or Hypothesis can pick them): reordered keys and spaces, a default written out
or left out (``"on": "own"``, ``"schema_version"``), an unknown field, JSON escapes, a repeated
key (which the contract refuses and ``json.loads`` reads as the last), wrong types (a seat as
text, a ``seq`` written ``3.0``, an amount as a number), an amount with one decimal, values outside
the contract that ``from_contract`` still reads (seat 13, a table id with a space), another type,
a truncated line. Each either gives the reference's reading of the line, or its refusal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from controller.model.table_events import TableEvent, to_contract

__all__ = ["ODD_LINES", "line", "odd_lines"]

Raw = dict[str, Any]


def line(event: TableEvent | Raw) -> bytes:
    """The event as one compact JSON line with sorted keys (`streams.sim.floor.write_jsonl`)."""
    raw = to_contract(event) if not isinstance(event, dict) else event
    return json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()


def _reordered(raw: Raw) -> bytes:
    return json.dumps(dict(reversed(raw.items())), separators=(", ", " : ")).encode()


def _versioned(raw: Raw) -> bytes:
    return line(raw | {"schema_version": 2 if len(raw) % 2 else 1})


def _defaults(raw: Raw) -> bytes:
    """A default left out (a wager on its own hand without ``on``) or written out."""
    if raw.get("type") == "wager_placed" and raw.get("on") == "own":
        return line({key: value for key, value in raw.items() if key != "on"})
    if raw.get("type") == "decision":
        return line(raw | {"discards": raw.get("discards", [])})
    return line(raw | {"schema_version": 1})


def _unknown_field(raw: Raw) -> bytes:
    return line(raw | {"note": "from the pit"})


def _escaped(raw: Raw) -> bytes:
    """Every character of the table id written as a ``\\u`` escape (the same text once read)."""
    text = line(raw).decode()
    table = json.dumps(raw["table_id"])
    spelled = '"' + "".join(f"\\u{ord(c):04x}" for c in raw["table_id"]) + '"'
    return text.replace(f'"table_id":{table}', f'"table_id":{spelled}', 1).encode()


def _repeated_then_real(raw: Raw) -> bytes:
    """A repeated ``seq``, the event's own last: ``json.loads`` keeps the last."""
    return b'{"seq":999999999,' + line(raw)[1:]


def _real_then_repeated(raw: Raw) -> bytes:
    """A repeated ``seq``, a later one last: read as the later ``seq``."""
    return line(raw)[:-1] + b',"seq":' + str(int(raw["seq"]) + 1).encode() + b"}"


def _seat_as_text(raw: Raw) -> bytes:
    return line(raw | {"seat": str(raw["seat"])} if "seat" in raw else raw | {"seq": "1"})


def _seq_as_float(raw: Raw) -> bytes:
    return line(raw).replace(
        b'"seq":' + str(raw["seq"]).encode(), b'"seq":' + f"{raw['seq']}.0".encode()
    )


def _amount_as_number(raw: Raw) -> bytes:
    return line(raw | {"amount": 25} if "amount" in raw else raw | {"round_id": 7})


def _one_decimal(raw: Raw) -> bytes:
    return line(raw | {"amount": "25.0"} if "amount" in raw else raw | {"occurred_at": 1.5})


def _outside_contract(raw: Raw) -> bytes:
    """Values the contract refuses but `from_contract` reads (the rules then decide)."""
    if "seat" in raw:
        return line(raw | {"seat": 13})
    return line(raw | {"table_id": raw["table_id"] + " 2"})


def _other_type(raw: Raw) -> bytes:
    return line(raw | {"type": "heartbeat" if len(raw) % 2 else "wager_withdrawn"})


def _truncated(raw: Raw) -> bytes:
    return line(raw)[:-2]


#: Other ways to write an event (or damage it), each from its contract dict.
ODD_LINES: tuple[Callable[[Raw], bytes], ...] = (
    _reordered,
    _versioned,
    _defaults,
    _unknown_field,
    _escaped,
    _repeated_then_real,
    _real_then_repeated,
    _seat_as_text,
    _seq_as_float,
    _amount_as_number,
    _one_decimal,
    _outside_contract,
    _other_type,
    _truncated,
)


def odd_lines(event: TableEvent) -> st.SearchStrategy[bytes]:
    """The event written plainly or in one of the `ODD_LINES` ways."""
    raw = to_contract(event)
    return st.sampled_from((line, *ODD_LINES)).map(lambda write: write(raw))
