"""A conformance suite for the Codex app-server v2 protocol (codex-cli 0.169.0).

Requirements live in `requirements.toml`, cases in `conformance.cases`, deliberate differences in
`differences.toml`, Tether's known gaps in `known-gaps.toml`. Run it with `python -m conformance`.
"""
