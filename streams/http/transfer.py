"""``POST /v1/meters/{meter_id}/transfer``: a game leaves the floor and its pool moves, under dual
control (PA 44 Pa.B. 599; Indiana 68 IAC 2-6-33; `controller.transfer`).

The caller is one supervisor (``Authorization``); the second, who approves, co-signs the same call
with ``Second-Authorization: Bearer <token>`` of another supervisor, so both are authenticated here
and both names are logged (``by``, ``approved_by``). Like every state-changing call it takes an
``Idempotency-Key`` (`streams.http.operator.request_key`): a retry gets the first answer. The core
decides the rest (links removed first, a reason, the meters known and not retired) and a refusal is
409 with its reason, recorded like any refused input. Kept in its own module so the operator routes
can change without it.
"""

from __future__ import annotations

from functools import partial
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.model.commands import TransferMeter
from controller.model.views import meter_view
from streams.clock import utc_now
from streams.http.common import (
    SUPERVISOR_ROLES,
    ApiContext,
    BodyError,
    guarded,
    json_object,
    parse_json,
    read_body,
)
from streams.http.operator import operate_once, request_key, second_supervisor
from streams.http.tokens import Principal

MAX_TRANSFER_BODY: Final = 4_096
MAX_REASON: Final = 500
_FIELDS: Final = frozenset({"to", "reason"})
Schema = dict[str, object]


def routes(ctx: ApiContext) -> list[Route]:
    """The transfer route, for supervisors."""
    endpoint = guarded(ctx, SUPERVISOR_ROLES, partial(transfer, ctx))
    return [Route("/v1/meters/{meter_id}/transfer", endpoint, methods=["POST"])]


async def transfer(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Move the meter's whole pool to ``to`` and retire it; both meters after, as they stand."""
    body = json_object(parse_json(await read_body(request, MAX_TRANSFER_BODY)), _FIELDS)
    target, reason = body.get("to"), body.get("reason")
    if not isinstance(target, str) or not target.strip():
        raise BodyError(400, "body: to must name the meter that receives the pool")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise BodyError(
            400, f"body: reason must be a non-blank string of at most {MAX_REASON} characters"
        )
    meter_id = request.path_params["meter_id"]
    key = request_key(request, principal, "transfer", meter_id, body)
    approved_by = second_supervisor(ctx, request, principal)
    if not approved_by:  # a transfer always needs the second supervisor, whatever the amount
        ctx.sensor.auth_failed("second")
        raise BodyError(
            403, "dual control: Second-Authorization must be another supervisor's bearer token"
        )
    command = TransferMeter(
        **key,
        meter_id=meter_id,
        to_meter_id=target,
        by=principal.name,
        approved_by=approved_by,
        reason=reason,
        occurred_at=utc_now(),
    )
    outcome = await operate_once(ctx, command)
    if isinstance(outcome, Response):
        return outcome
    meters = ctx.controller.partial_state().meters
    answer = {
        "command_id": command.command_id,
        "meter": {**meter_view(meters[meter_id]), "retired": True},
        "to": meter_view(meters[target]),
    }
    return JSONResponse(answer, headers=outcome)


def openapi_paths(responses: Schema) -> Schema:
    """The path item for `streams.http.openapi` (``responses``: its usual answers by status)."""
    meter = {"$ref": "#/components/schemas/Meter"}
    answer = {
        "type": "object",
        "required": ["command_id", "meter", "to"],
        "properties": {"command_id": {"type": "string"}, "meter": meter, "to": meter},
    }
    request = {
        "type": "object",
        "required": ["to", "reason"],
        "additionalProperties": False,
        "properties": {
            "to": {"type": "string", "minLength": 1},
            "reason": {"type": "string", "minLength": 1, "maxLength": MAX_REASON},
        },
    }
    second = {
        "name": "Second-Authorization",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "Bearer <token> of a second, different supervisor (dual control)",
    }
    path = {
        "name": "meter_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "minLength": 1},
        "description": "the meter leaving the floor (its links removed first)",
    }
    ok = {"description": "Both meters after", "content": {"application/json": {"schema": answer}}}
    operation = {
        "operationId": "transferMeter",
        "summary": "Move a meter's whole pool to another meter and retire it (two supervisors)",
        "description": "Roles: supervisor, co-signed by a second supervisor.",
        "parameters": [path, second],
        "requestBody": {"required": True, "content": {"application/json": {"schema": request}}},
        "responses": {**responses, "200": ok},
    }
    return {"/v1/meters/{meter_id}/transfer": {"post": operation}}
