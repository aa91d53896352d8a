"""Record the reference transcripts: drive the real Codex binary through scripted scenarios.

`scenarios` holds what each transcript does, `session` drives one `codex app-server` over stdio,
`fake` is the scripted model (`tether_testing`) with a request log, `normalise` replaces what differs
from run to run (ids, timestamps, paths) and removes Codex's instruction prose, `skeleton` writes and
compares the one-line-per-message views. `python -m conformance.regenerate` is the command line.
"""
