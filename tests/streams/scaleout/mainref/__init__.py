"""main's round and meter processors as they were before the fast path (`git show main:...` at
branch point of ``k13-procs``), kept verbatim (imports rewired here) as the reference the
differential tests (`tests/streams/scaleout/test_procs_differential.py`) compare the worker's
processors with, byte for byte. Do not edit: it is the definition of the records' bytes."""
