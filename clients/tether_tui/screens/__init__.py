"""The TUI's screens: thread list, thread view, approval prompt."""
