"""main's round processor and local apply at bf26c78 (``git show bf26c78:streams/scaleout/...``),
kept verbatim as the reference `tests/streams/scaleout/test_claim_output.py` compares the worker's
local path with: every claim encoded by the round processor and decoded back by local apply.
Do not edit: it is the definition of what the lazy claims (`streams.scaleout.claim_output`) and
local apply's shortcut must give."""
