"""Side-by-side benchmark of app-servers (Tether vs the reference Codex) on the same workloads.

Run ``.venv/bin/python -m bench.runner --help`` from the repository root; see bench/README.md.
"""
