"""The engine's `submit` as it was before `streams.embedded.batch`: the reference it is held to.

`ReferenceController.submit` is main's code (at `fd28275`) line for line: the log asked for the
batch's ids first, then `streams.embedded.intake.admit` item by item, and every record written by
`reference_encode` (`json` from `event_to_dict`, the readable definition of the log's bytes).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from unittest.mock import patch

from controller.model.events import Event
from controller.model.table_events import TableEventBase
from streams.codec import record_key, reference_encode
from streams.embedded import intake
from streams.embedded.engine import EmbeddedController
from streams.embedded.intake import Outcome, Scope, admit, logged_payloads
from streams.embedded.received import latest_allowed
from streams.ports import LogRecord


class ReferenceController(EmbeddedController):
    """The embedded engine with main's `submit`."""

    def submit(self, raws: Iterable[object], scope: Scope | None = None) -> list[Outcome]:
        """Main's `submit`."""
        with self._lock:
            outcomes, batch, events = [], [], []
            raws = list(raws)
            seen: dict[str, bytes] = logged_payloads(self._log, raws)
            heard: list[str] = []
            now = self._clock()
            latest = latest_allowed(self._session.partial_state().config, now)
            with self._undo_on_error():
                for raw in raws:
                    outcome, produced, payload = admit(
                        self._session,
                        raw,
                        seen,
                        heard,
                        scope=scope,
                        clock=self._clock,
                        latest=latest,
                    )
                    outcomes.append(outcome)
                    produced = (*produced, *(self._arm() if produced else ()))
                    for index, event in enumerate(produced):
                        dedupe = event.event_id if isinstance(event, TableEventBase) else ""
                        encoded = payload if index == 0 and payload is not None else _written(event)
                        batch.append(LogRecord(record_key(event), encoded, dedupe, now))
                        events.append(event)
                position = self._append(batch)
            self._appended(position, events)
            self.liveness.heard(heard)
            return outcomes


def _written(event: Event) -> bytes:
    return reference_encode(event)


def reference_encoding() -> AbstractContextManager[object]:
    """While open, `admit` writes the table event itself by `json` as well (it calls
    `streams.codec.encode`), so no record of the reference run depends on the plans under test."""
    return patch.object(intake, "encode", reference_encode)
