"""Supervisor routes: meter corrections, validating and paying progressive hits, configuration.

The ``by`` of each command is the name of the supervisor's token, so the log says who did it. The
core decides: a refusal (unknown meter or hit, a correction without a reason or taking a meter
below zero, paying a hit before it is validated) is recorded in the log like any refused input
and answered 409 with the core's reason. A body the edge cannot read is 400 and not recorded.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.model.commands import (
    ActivateConfig,
    CorrectMeter,
    OperatorCommand,
    PayHit,
    ValidateHit,
)
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
_CONFIG_FIELDS: Final = frozenset({"toml", "source"})
MAX_CONFIG_BODY: Final = 1_048_576

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
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise BodyError(
            400, f"body: reason must be a non-blank string of at most {MAX_REASON} characters"
        )
    if "amount" not in body:
        raise BodyError(400, 'body: amount is required (use "0.00" to correct only the reserve)')
    meter_id = request.path_params["meter_id"]
    command = CorrectMeter(
        command_id=_command_id("correction"),
        meter_id=meter_id,
        amount_delta_sub=cents_to_subunits(signed_cents(body["amount"], "amount")),
        reserve_delta_sub=cents_to_subunits(signed_cents(body.get("reserve", "0.00"), "reserve")),
        by=principal.name,
        reason=reason,
        occurred_at=utc_now(),
    )
    refused = await _operate(ctx, command)
    if refused is not None:
        return refused
    state = ctx.controller.state.meters[meter_id]
    return JSONResponse({"command_id": command.command_id, "meter": meter_view(state)})


async def validate(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """A floorperson or above validates a recognised hit (649a.11(c)(5)(iii))."""
    hit_id = request.path_params["hit_id"]
    command = ValidateHit(
        command_id=_command_id("validate"), hit_id=hit_id, by=principal.name, occurred_at=utc_now()
    )
    return await _hit_answer(ctx, command, hit_id)


async def pay(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """A validated hit is paid, with documentation (649a.11(c)(5)(iv)); 409 before validation."""
    hit_id = request.path_params["hit_id"]
    command = PayHit(
        command_id=_command_id("pay"), hit_id=hit_id, by=principal.name, occurred_at=utc_now()
    )
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
    command = ActivateConfig(
        command_id=_command_id("config"),
        source=source,
        text=text,
        by=principal.name,
        occurred_at=utc_now(),
    )
    refused = await _operate(ctx, command)
    if refused is not None:
        return refused
    state = ctx.controller.state
    pending = state.pending_config
    answer = {
        "command_id": command.command_id,
        "status": "scheduled" if pending is not None and pending.text == text else "active",
        "active_version": state.config_version,
        "waiting_for": list(pending.waiting_for) if pending is not None else [],
    }
    return JSONResponse(answer)


async def _hit_answer(ctx: ApiContext, command: ValidateHit | PayHit, hit_id: str) -> Response:
    refused = await _operate(ctx, command)
    if refused is not None:
        return refused
    hit = ctx.controller.state.hits[hit_id]
    return JSONResponse({"command_id": command.command_id, "hit": hit_view(hit)})


async def _operate(ctx: ApiContext, command: OperatorCommand) -> Response | None:
    """None if the core accepted ``command``; else the 409 answer with its reason."""
    outcome = await run_in_threadpool(ctx.controller.operate, command)
    if outcome.status == "accepted":
        return None
    return error(409, outcome.reason)


def _command_id(kind: str) -> str:
    """A fresh id: the log's record of this command and of a refusal of it."""
    return f"{kind}-{uuid.uuid4().hex}"
