"""Tether Python SDK."""
