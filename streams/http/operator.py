"""Supervisor routes: meter corrections, validating and paying progressive hits, configuration.

The ``by`` of each command is the name of the supervisor's token, so the log says who did it. The
core decides: a refusal (unknown meter or hit, a correction without a reason or taking a meter
below zero, paying a hit before it is validated) is recorded in the log like any refused input
and answered 409 with the core's reason. A body the edge cannot read is 400 and not recorded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.config.change import parsed
from controller.config.floor import MAX_CONFIG_TEXT
from controller.floor import visible
from controller.model.commands import (
    ActivateConfig,
    CorrectMeter,
    OperatorCommand,
    PayHit,
    ValidateHit,
)
from controller.model.errors import ConfigError
from controller.model.money import cents_to_subunits
from controller.model.views import meter_view
from streams.clock import utc_now
from streams.http.common import (
    SUPERVISOR_ROLES,
    ApiContext,
    BodyError,
    error,
    guarded,
    json_object,
    parse_json,
    read_body,
)
from streams.http.read import hit_view
from streams.http.tokens import Principal

MAX_OPERATOR_BODY: Final = 16_384
MAX_REASON: Final = 500
_SIGNED_CENTS: Final = re.compile(r"(-?)(0|[1-9][0-9]{0,11})\.([0-9]{2})\Z")
_CORRECTION_FIELDS: Final = frozenset({"amount", "reserve", "reason"})
_CONFIG_FIELDS: Final = frozenset({"toml", "source", "replaces"})
#: The largest configuration text, JSON-escaped (each quote doubles), plus the other fields.
MAX_CONFIG_BODY: Final = 2 * MAX_CONFIG_TEXT + 4_096
MAX_KEY: Final = 255
_KEY: Final = re.compile(r'"?([!#-~]{1,255})"?\Z')
REPLAYED_HEADER: Final = "Idempotent-Replayed"

OperatorHandler = Callable[[ApiContext, Request, Principal], Awaitable[Response]]


class AnythingConvertor(Convertor[str]):
    """Like Starlette's ``path`` convertor, but a line break matches too: a hit id the core does
    not know is answered 409 "unknown hit" after authentication, never 404 before it."""

    regex = "[\\s\\S]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("anything", AnythingConvertor())


def routes(ctx: ApiContext) -> list[Route]:
    """The supervisor routes. A hit id holds slashes ("tcp-1/R7/9/progressive/seat3"), hence
    ``:anything``; it may be sent as is or percent-encoded."""

    def post(path: str, handler: OperatorHandler) -> Route:
        return Route(path, guarded(ctx, SUPERVISOR_ROLES, partial(handler, ctx)), methods=["POST"])

    return [
        post("/v1/meters/{meter_id}/corrections", correct),
        post("/v1/hits/{hit_id:anything}/validate", validate),
        post("/v1/hits/{hit_id:anything}/pay", pay),
        post("/v1/config", configure),
    ]


def signed_cents(value: object, field: str) -> int:
    """A signed amount of money like "-12.34" as cents, or BodyError 400."""
    match = _SIGNED_CENTS.match(value) if isinstance(value, str) else None
    if match is None:
        msg = f'body: {field} must be a string of cents with two decimals like "-12.34" or "5.00"'
        raise BodyError(400, msg)
    cents = int(match.group(2)) * 100 + int(match.group(3))
    return -cents if match.group(1) else cents


async def correct(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """A reasoned correction of a meter and/or its reserve, by the calling supervisor."""
    body = json_object(parse_json(await read_body(request, MAX_OPERATOR_BODY)), _CORRECTION_FIELDS)
    reason = body.get("reason")
    if not isinstance(reason, str) or not visible(reason) or len(reason) > MAX_REASON:
        raise BodyError(
            400,
            f"body: reason must be a string of at most {MAX_REASON} characters with visible "
            "text (letters, digits, punctuation or symbols)",
        )
    if "amount" not in body:
        raise BodyError(400, 'body: amount is required (use "0.00" to correct only the reserve)')
    meter_id = request.path_params["meter_id"]
    key = request_key(request, principal, "correction", meter_id, body)
    command = CorrectMeter(
        **key,
        meter_id=meter_id,
        amount_delta_sub=cents_to_subunits(signed_cents(body["amount"], "amount")),
        reserve_delta_sub=cents_to_subunits(signed_cents(body.get("reserve", "0.00"), "reserve")),
        by=principal.name,
        second_by=second_supervisor(ctx, request, principal),
        reason=reason,
        occurred_at=utc_now(),
    )
    outcome = await operate_once(ctx, command)
    if isinstance(outcome, Response):
        return outcome
    state = ctx.controller.partial_state().meters[meter_id]
    answer = {"command_id": command.command_id, "meter": meter_view(state)}
    return JSONResponse(answer, headers=outcome)


async def validate(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """A floorperson or above validates a recognised hit (649a.11(c)(5)(iii))."""
    hit_id = request.path_params["hit_id"]
    key = request_key(request, principal, "validate", hit_id, await _empty_body(request))
    command = ValidateHit(**key, hit_id=hit_id, by=principal.name, occurred_at=utc_now())
    return await _hit_answer(ctx, command, hit_id)


async def pay(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """A validated hit is paid, with documentation (649a.11(c)(5)(iv)); 409 before validation."""
    hit_id = request.path_params["hit_id"]
    key = request_key(request, principal, "pay", hit_id, await _empty_body(request))
    command = PayHit(**key, hit_id=hit_id, by=principal.name, occurred_at=utc_now())
    return await _hit_answer(ctx, command, hit_id)


async def configure(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """A new floor configuration (TOML): applied at once, or scheduled until every live meter it
    changes reaches a safe point; logged with the supervisor's name, the time and the version."""
    body = json_object(parse_json(await read_body(request, MAX_CONFIG_BODY)), _CONFIG_FIELDS)
    text, source = body.get("toml"), body.get("source", "api")
    if not isinstance(text, str) or not text.strip():
        raise BodyError(400, "body: toml must be the configuration's TOML text")
    if not isinstance(source, str) or not 0 < len(source) <= 200:
        raise BodyError(400, "body: source must be a short name for the configuration")
    replaces = body.get("replaces", 0)
    if not isinstance(replaces, int) or isinstance(replaces, bool) or not 0 <= replaces < 2**31:
        raise BodyError(400, "body: replaces must be the version of the pending change it replaces")
    await run_in_threadpool(_parse_ahead, text, source)
    command = ActivateConfig(
        **request_key(request, principal, "config", "", body),
        source=source,
        text=text,
        replaces=replaces,
        by=principal.name,
        occurred_at=utc_now(),
    )
    outcome = await operate_once(ctx, command)
    if isinstance(outcome, Response):
        return outcome
    state = ctx.controller.partial_state()
    pending = state.pending_config
    answer = {
        "command_id": command.command_id,
        "status": "scheduled" if pending is not None and pending.text == text else "active",
        "active_version": state.config_version,
        "waiting_for": list(pending.waiting_for) if pending is not None else [],
    }
    return JSONResponse(answer, headers=outcome)


def _parse_ahead(text: str, source: str) -> None:
    """Parse the text in a worker thread, off the event loop and the engine lock: the core's own
    parse under the lock then finds it remembered (`controller.config.change.parsed`). A text it
    refuses is refused again, quickly (every number is checked by shape first), and recorded."""
    with contextlib.suppress(ConfigError):
        parsed(text, source)


def second_supervisor(ctx: ApiContext, request: Request, principal: Principal) -> str:
    """The name of the second supervisor co-signing this call (dual control), "" if none.

    Sent as ``Second-Authorization: Bearer <token>``: a supervisor's token other than the
    caller's. A token that is unknown, of another role or the caller's own is refused (403)."""
    header = request.headers.get("second-authorization")
    if header is None:
        return ""
    scheme, _, token = header.partition(" ")
    second = ctx.tokens.authenticate(token.strip()) if scheme.lower() == "bearer" else None
    if second is None or second.role != "supervisor":
        ctx.sensor.auth_failed("second")
        raise BodyError(403, "Second-Authorization must be another supervisor's bearer token")
    if second.name == principal.name:
        raise BodyError(403, "Second-Authorization must be a different supervisor than the caller")
    return second.name


async def _hit_answer(ctx: ApiContext, command: ValidateHit | PayHit, hit_id: str) -> Response:
    outcome = await operate_once(ctx, command)
    if isinstance(outcome, Response):
        return outcome
    hit = ctx.controller.partial_state().hits[hit_id]
    return JSONResponse({"command_id": command.command_id, "hit": hit_view(hit)}, headers=outcome)


async def operate_once(ctx: ApiContext, command: OperatorCommand) -> dict[str, str] | Response:
    """The headers of the answer if the core accepted ``command`` (now, or the first time this
    key was sent); else the error answer: 409 with the core's reason (replayed as first given),
    422 for a key already used for another request."""
    outcome = await run_in_threadpool(ctx.controller.operate, command)
    headers = {REPLAYED_HEADER: "true"} if outcome.replayed else {}
    if outcome.conflict:
        return error(422, outcome.reason)
    if outcome.status == "accepted":
        return headers
    return error(409, outcome.reason, headers)


def request_key(
    request: Request, principal: Principal, kind: str, target: str, body: object
) -> dict[str, str]:
    """``command_id``, ``idempotency_key`` and ``request_digest`` of a state-changing call.

    The ``Idempotency-Key`` header (IETF httpapi draft; a bare or quoted string of 1 to 255
    printable ASCII characters) is required: 400 without it. The command id is derived from
    the caller and the key, so a retry names the same command; the digest covers what the
    request asks for (kind, target, body), so the same key with another request is refused."""
    header = request.headers.get("idempotency-key")
    match = _KEY.match(header) if header is not None else None
    if match is None:
        raise BodyError(
            400,
            "header: Idempotency-Key is required on every state-changing call (1 to "
            f"{MAX_KEY} printable ASCII characters, e.g. a UUID); a retry repeats it unchanged",
        )
    key = match.group(1)
    who = hashlib.sha256(f"{principal.name}\n{key}".encode()).hexdigest()[:32]
    asked = json.dumps([kind, target, body], sort_keys=True, separators=(",", ":"))
    return {
        "command_id": f"{kind}-{who}",
        "idempotency_key": key,
        "request_digest": hashlib.sha256(asked.encode()).hexdigest(),
    }


async def _empty_body(request: Request) -> object:
    """Validate and pay take no body; whatever JSON is sent is part of the request's digest."""
    raw = await read_body(request, MAX_OPERATOR_BODY)
    return parse_json(raw) if raw.strip() else None
