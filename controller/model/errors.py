"""One exception tree for the whole controller.

::

    JackpotError                      base: catch this at a process edge, never inside the core
    ├── RuleViolation                 expected rejection of bad input; carries a reason for the
    dead-letter
    │   ├── InvalidCard               card text that is not a card ("1x", "AS" is fine, "Zz" is not)
    │   └── InvalidEvent              a table event the rules refuse (wager after lock, duplicate
    card...)
    ├── ConfigError                   a floor configuration that cannot be used; names file, key,
    expectation
    ├── InvariantViolation            a bug: money appeared or vanished, state contradicts itself;
    never caught
    └── AdapterError                  an edge technology failed (raised by `streams/`, wrapping
    the cause)
        ├── StoreUnavailable          the event log or a read model cannot be reached
        └── LogTampered               the event log fails its hash chain (names the position)

Why a tree and not ad-hoc exceptions: the ingest edge turns every `RuleViolation` into a dead-letter
record with its message, and lets everything else crash loudly. Messages are bound first and say
what
to do (``msg = f"..."; raise RuleViolation(msg)``).
"""

from __future__ import annotations


class JackpotError(Exception):
    """Base of every error this project raises on purpose."""


class RuleViolation(JackpotError):
    """Input that the rules refuse. The message is the dead-letter reason shown to operators."""


class InvalidCard(RuleViolation):
    """Text that does not name one of the 52 cards."""


class InvalidEvent(RuleViolation):
    """A table event that is malformed or not allowed in the table's current state."""


class ConfigError(JackpotError):
    """A floor configuration that cannot be used.

    The message names the file, the key and what was expected, so an operator can fix it without
    reading code.
    """

    def __init__(self, source: str, key: str, expected: str) -> None:
        self.source = source
        self.key = key
        self.expected = expected
        super().__init__(f"{source}: {key}: {expected}")


class InvariantViolation(JackpotError):
    """A broken internal guarantee (a bug). Never caught: the process must stop, not pay wrongly."""


class AdapterError(JackpotError):
    """An edge technology (SQLite, Kafka, Redis, HTTP) failed; raised with ``from`` the cause."""


class StoreUnavailable(AdapterError):
    """The event log or a read model cannot be reached right now; callers may retry."""


class DuplicateRecord(AdapterError):
    """An append carried a dedupe id that the log already holds; nothing was appended."""


class CorruptSnapshot(AdapterError):
    """A stored snapshot failed its checksum or could not be decoded: rebuild from the log."""


class LogTampered(AdapterError):
    """The event log fails its hash chain: a record was altered, removed or inserted.

    ``position`` is the first record that does not hold. The controller refuses to start on it:
    meters folded from a log that is not the one written are not served as true."""

    def __init__(self, position: int, reason: str) -> None:
        self.position = position
        self.reason = reason
        super().__init__(f"the event log fails its hash chain at position {position}: {reason}")
