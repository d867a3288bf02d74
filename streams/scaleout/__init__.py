"""The scale-out engine on Kafka: the round processor (by table) and the meter processor (by
meter), their records, the worker that runs them, ingest, dump, and the signage projector with
its liveness watch. Imports `adapters`, `embedded` (the shared signage feed), `liveness`,
`door` and below; imported only by `streams.cli`. The Kafka processors' framework code lives
only here.
"""
