"""The live side of ``jackpot reconcile``: read each meter from the read model or the service, and
compare it with what the log says (drift).

A live meter is a mapping of strings (`streams.ports.MeterReadModel.read`); ``amount`` is
required, ``reserve``, ``overflow`` and ``seq`` are compared when present. An amount given to
the cent ("1234.56", as signage and ``GET /v1/meters/{id}`` show it) is compared with the log's
meter rounded down to the cent; one given with more decimals is compared to the sub-unit.

The live side reflects the whole log, so it is compared with the meters at the last record read
(the report's ``head``), not with the period's closing. A live ``seq`` newer than the log's means
the log grew while it was read: that meter is reported ``ahead`` (re-run to compare), not drift.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

import httpx

from controller.model.errors import StoreUnavailable
from controller.model.money import SUBUNITS_PER_CENT, format_subunits_exact
from controller.model.state import MeterState
from streams.ports import LiveMeters

DriftStatus = Literal["drift", "missing", "ahead"]
_DECIMAL = re.compile(r"(-?)([0-9]+)(?:\.([0-9]{1,8}))?")
_SUBUNITS_PER_UNIT = 100 * SUBUNITS_PER_CENT


@dataclass(frozen=True, slots=True, kw_only=True)
class Drift:
    """A meter whose live value is not what the log says."""

    meter_id: str
    field: str
    log: str
    live: str
    status: DriftStatus


class ServiceMeters:
    """`LiveMeters` over the controller's HTTP API: ``GET {base}/v1/meters/{id}``."""

    def __init__(self, base_url: str, token: str, client: httpx.Client | None = None) -> None:
        self._base = base_url.rstrip("/")
        self._client = client or httpx.Client(timeout=10.0)
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The meter as the service shows it; None on 404."""
        url = f"{self._base}/v1/meters/{quote(meter_id, safe='')}"
        try:
            response = self._client.get(url, headers=self._headers)
        except httpx.HTTPError as exc:
            msg = f"cannot read {url}: {exc}; check --service and that the service is up"
            raise StoreUnavailable(msg) from exc
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            msg = f"{url} answered {response.status_code}: {response.text[:200]}"
            raise StoreUnavailable(msg)
        body = response.json()
        if not isinstance(body, dict):
            msg = f"{url} did not answer a JSON object"
            raise StoreUnavailable(msg)
        return {str(k): str(v) for k, v in body.items()}


def parse_decimal(text: str) -> tuple[int, int] | None:
    """("1234.56" -> (123456000000, 2)): the value in sub-units and its number of decimals."""
    match = _DECIMAL.fullmatch(text.strip())
    if match is None:
        return None
    sign, whole, part = match.group(1), match.group(2), match.group(3) or ""
    value = int(whole) * _SUBUNITS_PER_UNIT + int(part.ljust(8, "0"))
    return (-value if sign else value), len(part)


def _agrees(live_text: str, log_sub: int) -> bool:
    parsed = parse_decimal(live_text)
    if parsed is None:
        return False
    value, decimals = parsed
    if decimals <= 2:  # shown to the cent: the meter rounded down (a sign never shows more)
        return value == (log_sub // SUBUNITS_PER_CENT) * SUBUNITS_PER_CENT
    return value == log_sub


def compare_live(head: Iterable[MeterState], live: LiveMeters) -> tuple[Drift, ...]:
    """Every meter whose live value disagrees with the log's."""
    drifts: list[Drift] = []
    for state in head:
        fields = live.read(state.meter_id)
        if fields is None or "amount" not in fields:
            log_amount = format_subunits_exact(state.amount_sub)
            drifts.append(
                Drift(
                    meter_id=state.meter_id,
                    field="amount",
                    log=log_amount,
                    live="(none)",
                    status="missing",
                )
            )
            continue
        drifts += _compare(state, fields)
    return tuple(drifts)


def _compare(state: MeterState, fields: dict[str, str]) -> list[Drift]:
    seq_text = fields.get("seq", "")
    if seq_text.isdigit() and int(seq_text) > state.seq:
        ahead = Drift(
            meter_id=state.meter_id, field="seq", log=str(state.seq), live=seq_text, status="ahead"
        )
        return [ahead]
    drifts = []
    if seq_text and seq_text != str(state.seq):
        drifts.append(("seq", str(state.seq), seq_text))
    pools = (
        ("amount", state.amount_sub),
        ("reserve", state.reserve_sub),
        ("overflow", state.overflow_sub),
    )
    for name, log_sub in pools:
        text = fields.get(name)
        if text is not None and not _agrees(text, log_sub):
            drifts.append((name, format_subunits_exact(log_sub), text))
    return [
        Drift(meter_id=state.meter_id, field=name, log=log, live=live, status="drift")
        for name, log, live in drifts
    ]
