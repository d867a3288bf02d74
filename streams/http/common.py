"""What every HTTP route shares: the app's context, bearer-token roles, bounded bodies, errors.

Every error answer is ``{"error": reason}`` with a reason a person can act on. Authentication runs
before a body is read, so a caller without a valid token cannot make the server buffer anything,
and nothing it sent is applied or written to the log (it is counted in
``jackpot_http_auth_failures_total``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from controller.model.errors import InvalidEvent
from streams.adapters.prometheus.sensor import MetricsSensor
from streams.door.json_lines import MAX_DEPTH, strict_loads
from streams.embedded.engine import EmbeddedController
from streams.http.tokens import Principal, Role, TokenStore
from streams.ports import AuthSensor, EventLog

INGEST_ROLES: Final[frozenset[Role]] = frozenset({"table_device", "supervisor"})
READ_ROLES: Final[frozenset[Role]] = frozenset({"read_only", "supervisor"})
SUPERVISOR_ROLES: Final[frozenset[Role]] = frozenset({"supervisor"})
MAX_PAGE: Final = 1_000
DEFAULT_PAGE: Final = 100
MAX_POSITION: Final = 2**63 - 1  # SQLite's INTEGER PRIMARY KEY range
HEAD_KEPT: Final = 65_536  # what a refused body leaves in its dead letter
MAX_BODY_DEPTH: Final = MAX_DEPTH + 2  # an event's own limit, inside an envelope and an array
READ_TIMEOUT: Final = 10.0  # seconds a body may stall between two chunks

Endpoint = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Principal], Awaitable[Response]]


class Gatekeeper(Protocol):
    """What checking a bearer token needs: the tokens, and where to count a refusal. The API's
    `ApiContext` is one; so is the Kafka engine's pages service (`streams.http.kafka_pages`)."""

    @property
    def tokens(self) -> TokenStore: ...

    @property
    def sensor(self) -> AuthSensor: ...


@dataclass(frozen=True, slots=True)
class ApiContext:
    """What the routes work on; built once by `streams.http.app.create_app`."""

    controller: EmbeddedController
    log: EventLog
    tokens: TokenStore
    sensor: MetricsSensor
    max_body_bytes: int


class BodyError(Exception):
    """A request body refused before it became an event; ``head`` is what was read of it."""

    def __init__(self, status: int, reason: str, head: bytes = b"") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.head = head


def error(status: int, reason: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The one shape of every error answer."""
    return JSONResponse({"error": reason}, status_code=status, headers=headers)


def guarded(ctx: ApiContext, roles: frozenset[Role], handler: Handler) -> Endpoint:
    """An endpoint that runs ``handler`` only for a bearer token whose role is in ``roles``."""

    async def endpoint(request: Request) -> Response:
        principal = authorize(ctx, request, roles)
        if isinstance(principal, Response):
            return principal
        return await handler(request, principal)

    return endpoint


def authorize(ctx: Gatekeeper, request: Request, roles: frozenset[Role]) -> Principal | Response:
    """The caller, or a 401 (no or unknown token) or 403 (a role not allowed here) answer."""
    header = request.headers.get("authorization")
    challenge = {"WWW-Authenticate": 'Bearer realm="jackpot"'}
    if header is None:
        return _refuse(
            ctx,
            "missing",
            401,
            "missing bearer token: send Authorization: Bearer <token>",
            challenge,
        )
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return _refuse(ctx, "malformed", 401, 'Authorization must be "Bearer <token>"', challenge)
    principal = ctx.tokens.authenticate(token.strip())
    if principal is None:
        invalid = {"WWW-Authenticate": 'Bearer realm="jackpot", error="invalid_token"'}
        return _refuse(ctx, "invalid", 401, "unknown or revoked token", invalid)
    if principal.role not in roles:
        allowed = ", ".join(sorted(roles))
        reason = (
            f"role {principal.role} may not {request.method} {request.url.path} (needs {allowed})"
        )
        return _refuse(ctx, "forbidden", 403, reason, None)
    return principal


def _refuse(
    ctx: Gatekeeper, kind: str, status: int, reason: str, headers: Mapping[str, str] | None
) -> Response:
    ctx.sensor.auth_failed(kind)
    return error(status, reason, headers)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, or BodyError 413 if its Content-Length or the bytes actually sent pass ``limit``,
    or 408 if the client sends nothing for `READ_TIMEOUT` seconds (a slow client holding a
    connection and a buffer open is dropped).

    Both are checked: Content-Length may be absent (chunked) or lie, so bytes are counted as they
    arrive and reading stops at the limit; nothing past it is buffered.
    """
    declared = request.headers.get("content-length")
    if declared is not None and not (declared.isascii() and declared.isdigit()):
        raise BodyError(400, f"body: Content-Length {declared[:40]!r} is not a byte count")
    if declared is not None and (len(declared) > 18 or int(declared) > limit):
        head = await _head(request, min(limit, HEAD_KEPT))
        reason = f"body: Content-Length {declared[:40]} is over the limit of {limit} bytes"
        raise BodyError(413, reason, head)
    chunks: list[bytes] = []
    size = 0
    stream = request.stream()
    while True:
        try:
            chunk = await asyncio.wait_for(anext(stream), READ_TIMEOUT)
        except StopAsyncIteration:
            break
        except TimeoutError as exc:
            reason = f"body: nothing received for {READ_TIMEOUT:g} s; send the body at once"
            raise BodyError(408, reason, b"".join(chunks)[:HEAD_KEPT]) from exc
        size += len(chunk)
        if size > limit:
            head = b"".join([*chunks, chunk])[:HEAD_KEPT]
            reason = f"body: more than {limit} bytes sent, over the limit of {limit} bytes"
            raise BodyError(413, reason, head)
        chunks.append(chunk)
    return b"".join(chunks)


async def _head(request: Request, size: int) -> bytes:
    """Up to ``size`` bytes from the start of the body, for the dead-letter record."""
    kept = b""
    async for chunk in request.stream():
        kept += chunk[: size - len(kept)]
        if len(kept) >= size:
            break
    return kept


def parse_json(body: bytes) -> object:
    """A body as JSON, or BodyError 400 saying why it is not (only UTF-8 and strict JSON pass).

    A key repeated in one object and NaN/Infinity are refused: other languages' parsers disagree
    on them, so the device and the controller could read different events from the same bytes.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyError(400, f"body: not UTF-8 (byte {exc.start}); send UTF-8 JSON", body) from exc
    try:
        return strict_loads(text, "body", MAX_BODY_DEPTH)
    except InvalidEvent as exc:
        raise BodyError(400, str(exc), body) from exc


def page(request: Request) -> tuple[int, int]:
    """``after`` (a log position, default 0) and ``limit`` (1 to 1000, default 100) from the query.

    BodyError 400 (the query is part of the request) if either is not a whole number in range.
    """
    after = _query_int(request, "after", 0, 0, MAX_POSITION)
    limit = _query_int(request, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
    return after, limit


def _query_int(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isascii() or not text.isdigit() or len(text) > 19 or not low <= int(text) <= high:
        raise BodyError(400, f"query: {name} must be a whole number from {low} to {high}")
    return int(text)


def json_object(value: object, allowed: frozenset[str]) -> dict[str, object]:
    """``value`` as an object with no keys beyond ``allowed``, or BodyError 400."""
    if not isinstance(value, dict):
        raise BodyError(400, "body: expected a JSON object")
    extra = sorted(set(value) - allowed)
    if extra:
        raise BodyError(400, f"body: unknown field {extra[0][:64]!r}; allowed: {sorted(allowed)}")
    return value
