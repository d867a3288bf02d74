"""The signage and surveillance routes: token in the query or the header, roles, query checks,
and the event streams (snapshot first, then changes, heartbeats when quiet, a fault when the
source is lost). Streams here live a fraction of a second so the test client can read them whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from streams.adapters.prometheus.sensor import MetricsSensor
from streams.http import pages
from streams.http.common import ApiContext
from streams.http.tokens import Role
from streams.live.feed import LiveFeed
from tests.streams.http.support import AKQ_SPADES, TOKENS, Api, auth, full_round, open_api

FAST = pages.StreamSettings(heartbeat_seconds=0.05, stream_seconds=0.4, retry_ms=500)


class Pages:
    """The page routes over the controller of an `Api`, with their own feed."""

    def __init__(self, api: Api) -> None:
        ctx: ApiContext = api.client.app.state.context  # type: ignore[attr-defined]
        self.sensor = MetricsSensor()
        ctx = ApiContext(ctx.controller, ctx.log, ctx.tokens, self.sensor, ctx.max_body_bytes)
        self.feed = LiveFeed.attach(ctx.controller)
        self.client = TestClient(Starlette(routes=pages.routes(ctx, self.feed, FAST)))
        self.api = api

    def get(
        self, path: str, role: Role | None = "read_only", query: dict[str, str] | None = None
    ) -> tuple[int, str]:
        params = {**(query or {}), **({"token": TOKENS[role][1]} if role else {})}
        answer = self.client.get(path, params=params)
        return answer.status_code, answer.text


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Pages]:
    with open_api(tmp_path) as api:
        yield Pages(api)


def events(text: str) -> list[tuple[str, dict[str, object]]]:
    """The (event, data) pairs of an SSE body."""
    out: list[tuple[str, dict[str, object]]] = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            out.append((fields["event"], json.loads(fields["data"])))
    return out


@pytest.mark.parametrize("path", ["/signage", "/surveillance"])
def test_a_page_needs_a_reading_token(site: Pages, path: str) -> None:
    status, body = site.get(path, role=None)
    assert status == 401
    assert "add ?token=" in body
    assert site.get(path, role="table_device")[0] == 403
    assert site.client.get(path, params={"token": "nope"}).status_code == 401
    status, body = site.get(path, role="read_only")
    assert status == 200
    assert "<script>" in body
    assert not any(ref in body for ref in ("http://", "https://", 'src="', "href="))
    # Issue 15, finding 9: a supervisor token in a wall screen's URL leaks; the header only.
    status, body = site.get(path, role="supervisor")
    assert status == 403
    assert "may not be put in a URL" in body
    answer = site.client.get(path, headers=auth("supervisor"))
    assert answer.status_code == 200
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert "connect-src 'self'" in answer.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"meters": "tcp-progressive,nope"}, "meters must name configured meters"),
        ({"meters": ","}, "meters must name configured meters"),
        ({"stale_after_seconds": "0"}, "stale_after_seconds must be a number"),
        ({"stale_after_seconds": "nan"}, "stale_after_seconds must be a number"),
        ({"celebrate_seconds": "1e9"}, "celebrate_seconds must be a number"),
    ],
)
def test_a_sign_with_a_bad_query_says_why(
    site: Pages, query: dict[str, str], expected: str
) -> None:
    status, body = site.get("/signage", query=query)
    assert status == 400
    assert expected in body


def test_the_meter_stream_starts_with_a_snapshot_and_beats_when_quiet(site: Pages) -> None:
    status, body = site.get(
        "/v1/stream/meters", query={"meters": "tcp-progressive-5,tcp-progressive"}
    )
    assert status == 200
    assert body.startswith("retry: 500\n\n")
    received = events(body)
    kind, snapshot = received[0]
    assert kind == "snapshot"
    assert snapshot["live"] is True
    assert [m["meter_id"] for m in snapshot["meters"]] == ["tcp-progressive-5", "tcp-progressive"]  # type: ignore[attr-defined]
    assert {kind for kind, _ in received[1:]} == {"heartbeat"}
    assert len(received) >= 3


def test_the_streams_need_a_token_and_check_the_meters(site: Pages) -> None:
    assert site.get("/v1/stream/meters", role=None)[0] == 401
    assert site.get("/v1/stream/activity", role="table_device")[0] == 403
    status, body = site.get("/v1/stream/meters", query={"meters": "nope"})
    assert status == 400
    assert "meters must name configured meters" in json.loads(body)["error"]
    answer = site.client.get("/v1/stream/activity", headers=auth("supervisor"))
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert site.sensor.exposition().count(b"jackpot_http_auth_failures_total{") >= 1


def test_the_activity_stream_shows_a_pending_hit(site: Pages) -> None:
    site.api.client.post("/v1/events", json=full_round(AKQ_SPADES), headers=auth("table_device"))
    kind, snapshot = events(site.get("/v1/stream/activity")[1])[0]
    assert kind == "snapshot"
    hits = snapshot["open_hits"]
    assert isinstance(hits, list)
    [hit] = hits
    assert (hit["status"], hit["cards"]) == ("pending_validation", ["As", "Ks", "Qs"])


def test_a_lost_source_sends_faults_not_heartbeats(site: Pages) -> None:
    site.feed.source_down("Redis read model unreachable")
    received = events(site.get("/v1/stream/meters")[1])
    assert received[0][1]["live"] is False
    assert received[0][1]["problem"] == "Redis read model unreachable"
    assert {kind for kind, _ in received[1:]} == {"fault"}
    site.feed.source_up()
    assert {kind for kind, _ in events(site.get("/v1/stream/meters")[1])[1:]} == {"heartbeat"}


def test_the_openapi_paths_name_the_routes_and_their_errors(site: Pages) -> None:
    documented = pages.openapi_paths()
    assert set(documented) == {r.path for r in site.client.app.routes}  # type: ignore[attr-defined]
    for item in documented.values():
        assert isinstance(item, dict)
        operation = item["get"]
        assert operation["operationId"]
        assert "security" not in operation  # the document-wide bearer applies
        assert {"200", "400", "401", "403"} <= set(operation["responses"])
        assert operation["parameters"][0]["name"] == "token"


def test_a_tables_sign_streams_only_that_tables_meters(site: Pages) -> None:
    assert site.get("/signage", query={"tables": "tcp-7"})[0] == 200
    status, body = site.get("/v1/stream/meters", query={"tables": "tcp-7,tcp-8"})
    assert status == 200
    snapshot = events(body)[0][1]
    assert [m["meter_id"] for m in snapshot["meters"]] == ["tcp-progressive-5"]  # type: ignore[attr-defined]
    assert snapshot["venue"] == "Keystone Riverfront Casino"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"tables": "tcp-99"}, "tables must name configured tables"),
        ({"tables": ""}, "tables must name configured tables"),
        ({"tables": "tcp-1", "meters": "tcp-progressive"}, "meters or tables, not both"),
    ],
)
def test_a_bad_tables_query_says_why(site: Pages, query: dict[str, str], expected: str) -> None:
    status, body = site.get("/signage", query=query)
    assert status == 400
    assert expected in body


def test_a_hits_round_story_is_served_to_readers(site: Pages) -> None:
    site.api.client.post("/v1/events", json=full_round(AKQ_SPADES), headers=auth("table_device"))
    status, body = site.get("/v1/rounds/story", query={"table": "tcp-1", "round": "R1"})
    assert status == 200
    story = json.loads(body)
    assert (story["table_id"], story["round_id"]) == ("tcp-1", "R1")
    assert "progressive_hit" in [e["type"] for e in story["events"]]
    assert all(e["received_at"] for e in story["events"])
    assert site.get("/v1/rounds/story", query={"table": "tcp-1", "round": "R7"})[0] == 404
    assert site.get("/v1/rounds/story", query={"table": "tcp-1"})[0] == 400
    assert (
        site.get("/v1/rounds/story", role=None, query={"table": "tcp-1", "round": "R1"})[0] == 401
    )
    assert site.get("/v1/rounds/story", role="table_device")[0] == 403
