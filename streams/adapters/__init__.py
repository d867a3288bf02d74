"""One adapter per technology behind the ports (`streams.ports`): `memory` (the in-memory twins),
`sqlite` (the embedded log; its rows, each input's derived records packed in the row's tail, in
`sqlite_rows`, chained natively when the extension runs; its snapshots in `sqlite_snapshots`),
`chain` (the log's hash chain), `redis` (the signage read model and playability
board), `kafka` (settings, security, topics, ACLs, reading, the producer, a log on a topic),
`prometheus` (every collector). Adapters import `streams.ports`, `streams.codec`,
`streams.clock`, `streams.liveness`, `streams.door` and `streams.native`, never each other,
`cli`, `http` or `scaleout`.
"""
