"""The door for table events: one JSON line read the same way every language would (`json_lines`),
the contract as msgspec structs (`contract_structs`), the jsonschema check (`validation`), the fast
check (`fast_decode`, with `struct_checks`), lines straight into the fast session (`fast_core`)
and the v2 `heartbeat`. Imports the core and `streams.ports` only.
"""
