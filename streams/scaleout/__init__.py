"""The scale-out engine on Kafka: the round processor (by table) and the meter processor (by
meter) on transactions (`txloop`), ceilings' diverts (`diverts`) and mystery levels (`mystery`)
between meter partitions, their records, the worker that runs them, ingest, dump, the signage
projector with its liveness watch, and the faust read side (`readside`: surveillance aggregates,
the contribution-rate alert, the optional faust liveness watch). Imports `adapters`, `embedded`
(the shared signage feed and the mystery seal), `liveness`, `door` and below; imported only by
`streams.cli`. The Kafka processors' framework code (confluent-kafka, faust) lives only here.
"""
