"""The edge of the controller: everything that touches the world, around the pure core.

The map (enforced by `lint-imports`, contracts in pyproject.toml), from the top down:

- `cli`: one module per ``jackpot`` command; imported by nothing.
- `http` (the embedded service's routes, tokens, pages) and `scaleout` (the Kafka engine's
  processors, worker, ingest, dump and signage projector).
- `live` (the pages' live feed, activity, alerts, playability), `reconcile` (the one
  reconciliation service), `sim` (the floor simulator).
- `embedded`: the embedded engine and its signage feed.
- `adapters`: one package or module per technology (memory, sqlite, redis, kafka, prometheus),
  independent of each other.
- `liveness` (who was heard from lately) and `door` (the event contract: JSON lines, structs,
  validation, heartbeat).
- `codec` (how events are written to and read from every log) and `clock` (the wall clock).
- `ports`: every `typing.Protocol` the edge's parts meet through, with their value types.
- `compiled`: loads the mypyc build of `controller.fast` while it matches its sources.
"""

from streams.compiled import install

install()  # the mypyc build of the fast path, only while it is current (streams/compiled.py)
