"""The Tether daemon."""

__version__ = "0.1.0"


def _skip_httpx_cli() -> None:
    """httpx's package imports its command-line tool, which imports click, rich and pygments
    when they are installed (the TUI brings them): about half of httpx's import time, paid by
    every daemon's first model request, for a CLI the daemon never runs. A placeholder in its
    place keeps `httpx.main` defined; the real `httpx` command runs in its own process."""
    import sys
    import types

    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    placeholder = types.ModuleType("httpx._main")

    def main() -> None:
        raise SystemExit("httpx's command line is not loaded inside Tether")

    placeholder.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = placeholder


_skip_httpx_cli()
