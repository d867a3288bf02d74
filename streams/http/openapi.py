"""GET /openapi.json: the hand-written OpenAPI 3.1 description of every route `create_app` serves.

Hand-written, not generated, so it says what the API promises rather than what the code happens
to do; `tests/streams/http/test_api.py` checks that it names exactly the routes the app serves,
and a fuzzer (schemathesis) checks the rest. Component schemas live in
`streams.http.openapi_schemas`, the paths in `streams.http.openapi_paths`.
"""

from __future__ import annotations

import json
from functools import lru_cache

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streams.http import pages, playability, transfer
from streams.http.openapi_paths import api_paths, error_responses
from streams.http.openapi_schemas import Schema, component_schemas


def routes() -> list[Route]:
    """The route serving the document (no authentication: it holds no secrets)."""
    return [Route("/openapi.json", openapi_endpoint, methods=["GET"])]


async def openapi_endpoint(request: Request) -> Response:
    """The document as JSON."""
    return JSONResponse(openapi_document())


def openapi_document() -> Schema:
    """A fresh copy of the document (callers may change it)."""
    document: Schema = json.loads(_serialised())
    return document


@lru_cache(maxsize=1)
def _serialised() -> str:
    bearer = {
        "type": "http",
        "scheme": "bearer",
        "description": "From `jackpot token add`; roles table_device, read_only, supervisor.",
    }
    document = {
        "openapi": "3.1.0",
        "info": {
            "title": "Table-games progressive jackpot controller",
            "version": "1.0.0",
            "description": "Table events in; meters, hits, awards and the audit log out.",
        },
        "security": [{"bearer": []}],
        "paths": {
            **api_paths(),
            **pages.openapi_paths(),
            **playability.openapi_paths(),
            **transfer.openapi_paths(error_responses(400, 401, 403, 409, 413, 503)),
        },
        "components": {
            "schemas": component_schemas() | playability.component_schemas(),
            "securitySchemes": {"bearer": bearer},
        },
    }
    return json.dumps(document)
