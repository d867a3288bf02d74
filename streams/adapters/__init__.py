"""One adapter per technology behind the ports (`streams.ports`): `memory` (the in-memory twins),
`sqlite` (the embedded log and snapshots), `redis` (the signage read model and playability
board), `kafka` (settings, security, topics, ACLs, reading, the producer, a log on a topic),
`prometheus` (every collector). Adapters import `streams.ports`, `streams.codec`,
`streams.clock`, `streams.liveness` and `streams.door`, never each other, `cli`, `http` or
`scaleout`.
"""
