"""Tether's thin terminal UI: a Textual app speaking to an app-server through `tether_client`.

Run it with `tether tui` (see `tether_tui.cli`); embed it with `tether_tui.app.TetherApp`.
"""
