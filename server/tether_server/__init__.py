"""The Tether daemon."""

__version__ = "0.1.0"
