"""The embedded controller's HTTP service (Starlette): the app, its routes (ingest, read, operator,
playability, reconciliation, OpenAPI), bearer tokens, the signage and surveillance pages and
their static files, and the Kafka engine's pages service. Imports anything below it; imported
only by `streams.cli`.
"""
