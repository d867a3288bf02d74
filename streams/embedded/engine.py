"""The embedded engine: one process, one durable log, state derived from it and nothing else.

Ingest checks each table event (the schema, the idempotency check) and decides it on the core's
fast path (`controller.fast.Session`, proven equal to the reference `decide`/`evolve`): one item
in `streams.embedded.intake`, a batch of parsed items in `streams.embedded.batch`, a batch of
JSON lines on the door's structs in `streams.embedded.lines`. This module is the orchestration:
the lock, the batch, the one atomic append, the listeners, the snapshots. A failed write puts
the session back where the batch started: the state never runs ahead of the log. A restart
(`streams.embedded.integrity.restore`) loads the newest snapshot that holds, walks the hash chain
to the head and replays the tail; the full check runs in the background (`self_check`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

from controller.config.floor import FloorConfig
from controller.fast import Session
from controller.model.commands import ActivateConfig, OperatorCommand
from controller.model.errors import (
    DuplicateRecord,
    RuleViolation,
    StoreUnavailable,
)
from controller.model.events import Event, EventRejected
from streams.clock import utc_now
from streams.codec import MAX_RAW_KEPT, decode, encode, record_key
from streams.door.fast_core import Emitted, recorded
from streams.embedded import arming
from streams.embedded.batch import Context, Decided, decide_batch
from streams.embedded.dead_letter import refused_command
from streams.embedded.intake import (
    Outcome,
    Scope,
    Status,
    logged_payloads,
    refuse,
    repeated,
)
from streams.embedded.integrity import CheckStatus, restore
from streams.embedded.lines import decide_lines
from streams.embedded.parsed import items_of
from streams.embedded.received import latest_allowed
from streams.embedded.views import Views
from streams.liveness.tracker import LivenessTracker
from streams.ports import EventLog, LogRecord, SnapshotStore

Listener = Callable[[Sequence[Event]], None]
Decide = Callable[[dict[str, bytes] | None, Context], Decided]


class _LogKnows(Exception):
    """A batch decided without asking the log holds an id the log knows: decide it again."""


__all__ = ["EmbeddedController", "Listener", "Outcome", "Scope", "Status"]


class EmbeddedController(Views):
    """The controller on one machine over an `EventLog` and a `SnapshotStore`."""

    def __init__(
        self,
        log: EventLog,
        snapshots: SnapshotStore,
        *,
        snapshot_every: int = 20_000,
        clock: Callable[[], str] = utc_now,
        monotonic: Callable[[], float] = time.monotonic,
        mystery_key: bytes | None = None,
    ) -> None:
        """``mystery_key`` seals and unseals mystery levels' triggers (`streams.embedded.mystery`);
        a floor with a mystery level refuses to start without it."""
        self._mystery_key = mystery_key
        self._log = log
        # Heartbeats and accepted events are signs of life; never logged, never in the state.
        self.liveness = LivenessTracker(monotonic)
        self._snapshots = snapshots
        self._snapshot_every = snapshot_every
        self._clock = clock
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._session = Session()
        self._mystery_config: tuple[FloorConfig | None, bool] = (None, False)
        self._position = 0
        self._snapshot_position = 0
        self.restore_note = ""
        self.restore_walked = 0  # chain records walked at start: the tail after the snapshot
        self.integrity_fault = ""
        """Set by the background self-check (`streams.embedded.self_check`) when the log on disk
        no longer folds to the state served: nothing more is written, /readyz says why."""
        self.full_check = CheckStatus()
        """The background full check's last word (chain from the first record, whole refold)."""

    @property
    def log(self) -> EventLog:
        """The event log the state is derived from (read side: awards, log pages, reports)."""
        return self._log

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with each appended batch of events, after it is durable."""
        self._listeners.append(listener)

    def start(self, config_text: str, config_source: str, by: str = "system") -> Outcome:
        """Restore from snapshot and log; activate the configuration if it is new."""
        with self._lock:
            self._restore()
            partial = self._session.partial_state()  # the meters: no table needs decoding
            unsealed = arming.unsealed(partial, self._mystery_key)
            if unsealed is not partial:
                self._session = self._session.rebased(unsealed)
            current = self._session.config_event
            if current is not None and current.text == config_text:
                return Outcome("config", "duplicate", "configuration already active")
            command = ActivateConfig(
                command_id=f"config-{self._position + 1}",
                source=config_source,
                text=config_text,
                by=by,
                occurred_at=self._clock(),
            )
            return self.operate(command)

    def _restore(self) -> None:
        """`streams.embedded.integrity.restore`; the full check runs in the background."""
        restored = restore(self._log, self._snapshots)
        self.restore_note, self.restore_walked = restored.note, restored.walked
        self._session, self._position = restored.session, restored.position
        self._snapshot_position = restored.position

    def submit(self, raws: Iterable[object], scope: Scope | None = None) -> list[Outcome]:
        """Validate, de-duplicate and decide a batch of raw table events; append it atomically.

        An item ``scope`` refuses for its table is dead-lettered with that reason, like any other
        refused input, before it can be noted, de-duplicated or decided. The batch is decided
        first without asking the log for its ids (`streams.embedded.batch`); if the log holds one
        it decided, the session goes back and the batch is decided again knowing them."""
        with self._lock:
            items = list(raws)
            return self._submit(partial(decide_batch, items), lambda: items, scope)

    def submit_lines(
        self, lines: Iterable[bytes], scope: Scope | None = None, names: Sequence[str] = ()
    ) -> list[Outcome]:
        """`submit` of the items JSON lines hold (each read by `parse_json_line`; a line it
        refuses is dead-lettered in its place with that reason, the line named by ``names`` if
        given, and the line's text): the same answers, records and state, most lines decided
        on the door's structs without a dict (`streams.embedded.lines`)."""
        with self._lock:
            batch = list(lines)
            decide = partial(decide_lines, batch, names)
            return self._submit(decide, partial(items_of, batch), scope)

    def _submit(
        self, decide: Decide, items: Callable[[], list[object]], scope: Scope | None
    ) -> list[Outcome]:
        now = self._clock()
        latest = latest_allowed(self._session.config, now)
        session = partial(getattr, self, "_session")  # a C call a line, not a Python frame
        quiet = self._session.config if not self._mystery(self._session.config) else None
        ctx = Context(session, self._arm, scope, self._clock, now, latest, quiet)
        try:
            decided, position = self._decide_and_append(decide, None, ctx)
        except _LogKnows:
            logged = logged_payloads(self._log, items())
            decided, position = self._decide_and_append(decide, logged, ctx)
        self._appended(position, decided.events)
        self.liveness.heard(dict.fromkeys(decided.heard))  # after the append: it is durable
        return decided.outcomes

    def _decide_and_append(
        self, decide: Decide, logged: dict[str, bytes] | None, ctx: Context
    ) -> tuple[Decided, int | None]:
        """Decide and append one batch; `_LogKnows` (the session put back, nothing appended) if
        it was decided without ``logged`` and the log holds one of the ids it decided."""
        try:
            with self._undo_on_error():
                decided = decide(logged, ctx)
                if decided.unsure and self._log.payloads_of(decided.unsure):
                    raise _LogKnows
                return decided, self._append(decided.records)
        except DuplicateRecord:
            if logged is None:
                raise _LogKnows from None
            raise

    def record_rejection(self, raw_text: str, reason: str) -> Outcome:
        """Dead-letter input that never became an event (malformed JSON, an oversized body)."""
        with self._lock:
            outcome, produced = refuse(raw_text[:MAX_RAW_KEPT], reason, self._clock)
            self._log_refusal(produced)
            return outcome

    def _log_refusal(self, produced: tuple[Event, ...]) -> None:
        """Append a refusal's dead letters (a refusal changes no state)."""
        now = self._clock()
        batch = [LogRecord(record_key(e), encode(e), "", now) for e in produced]
        self._appended(self._append(batch), list(produced))

    def operate(self, command: OperatorCommand) -> Outcome:
        """Decide an operator command (configuration, correction, hit validation or payment).

        A command with an ``idempotency_key`` is logged under ``operator:<command_id>`` (the edge
        derives the id from the caller and the key): a retry finds its first record and gets the
        first answer, applied once, even after a restart; the key with another request is refused
        and dead-lettered. All under the engine lock, so concurrent retries apply once too."""
        with self._lock:
            dedupe = f"operator:{command.command_id}" if command.idempotency_key else ""
            if dedupe:
                earlier = self._log.payloads_of([dedupe]).get(dedupe)
                if earlier is not None:
                    return self._repeat(command, decode(earlier))
            back = self._session.rollback_point()
            with self._undo_on_error():
                produced = self._session.step(command)
                try:
                    armings = self._arm()
                except RuleViolation as exc:  # a mystery level and no key: refused, and recorded
                    self._session, armings = back(), ()
                    produced = (refused_command(command, str(exc), self._clock()),)
                produced = (*produced, *armings)
                now = self._clock()
                batch = [
                    LogRecord(record_key(e), encode(e), dedupe if index == 0 else "", now)
                    for index, e in enumerate(produced)
                ]
                position = self._append(batch)
            self._appended(position, list(produced))
            first = produced[0]
            if isinstance(first, EventRejected):
                return Outcome(command.command_id, "rejected", first.reason)
            return Outcome(command.command_id, "accepted")

    def _repeat(self, command: OperatorCommand, first: Event) -> Outcome:
        """The answer to a command whose key was logged before with ``first`` (`repeated`)."""
        outcome, produced = repeated(command, first, self._clock)
        if produced:
            self._log_refusal(produced)
        return outcome

    def _arm(self) -> tuple[Event, ...]:
        """`arming.armed` on the session: a floor without a mystery level (the common case) costs
        one look at its configuration; with one, the session is rebased on the armed state."""
        if not self._mystery(self._session.config):
            return ()
        partial = self._session.partial_state()
        state, armings = arming.armed(partial, self._mystery_key, self._clock())
        if state is not partial:
            self._session = self._session.rebased(state)
        return armings

    def _mystery(self, config: FloorConfig | None) -> bool:
        """Whether ``config`` has a mystery level (remembered for the last configuration)."""
        if self._mystery_config[0] is not config:
            mystery = config is not None and any(d.mystery for d in config.meters.values())
            self._mystery_config = (config, mystery)
        return self._mystery_config[1]

    @contextmanager
    def _undo_on_error(self) -> Iterator[None]:
        """Deciding advances the session before the append; if anything fails before the batch
        is durable (the append, or an unexpected error mid-batch), the session goes back to the
        state the batch started from and the error propagates: the state never runs ahead of the
        log."""
        back = self._session.rollback_point()
        try:
            yield
        except BaseException:
            self._session = back()
            raise

    def _append(self, batch: list[LogRecord]) -> int | None:
        """The log position after appending ``batch`` (None for an empty batch)."""
        if not batch:
            return None
        if self.integrity_fault:  # a 503 at the edge: no meter moves on a log that is not ours
            msg = f"the integrity self-check failed, nothing is written: {self.integrity_fault}"
            raise StoreUnavailable(msg)
        return self._log.append(batch)

    def _appended(self, position: int | None, events: Sequence[Emitted]) -> None:
        """The batch is durable: tell the listeners (the frozen events), snapshot when due."""
        if position is None:
            return
        self._position = position
        if self._listeners:
            frozen = [recorded(event) for event in events]
            for listener in self._listeners:
                listener(frozen)
        if position - self._snapshot_position >= self._snapshot_every:
            self.snapshot()
