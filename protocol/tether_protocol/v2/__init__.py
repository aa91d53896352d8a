"""Codex app-server v2 wire types (target: codex-cli 0.169.0)."""
