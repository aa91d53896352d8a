"""`thread/settings/updated`: what Codex 0.169.0 tells a thread's subscribers when the settings its
next turns run with change.

Codex sends it when a `turn/start` with overrides (a collaboration mode among them) or a
`thread/settings/update` changes what it reports, and not when they leave it as it was; a resume,
with overrides or without, sends none.
"""

from __future__ import annotations

from tether_protocol import server_methods as sm
from tether_protocol.v2.thread_extras import ThreadSettingsUpdatedNotification
from tether_server.core.settings import TurnSettings
from tether_server.processor.settings import settings_view
from tether_server.processor.state import ServerState
from tether_server.rpc.outgoing import send_notification


def changed(
    thread_id: str, before: TurnSettings, after: TurnSettings
) -> ThreadSettingsUpdatedNotification | None:
    """The notification to send when `after` reports other settings than `before`, else None."""
    if after == before:  # most turns: no overrides, and two views would be built to compare
        return None
    view = settings_view(after)
    if view == settings_view(before):
        return None
    return ThreadSettingsUpdatedNotification(thread_id=thread_id, thread_settings=view)


def announce(state: ServerState, update: ThreadSettingsUpdatedNotification | None) -> None:
    """Send `update` (if any) to the thread's subscribers."""
    if update is not None:
        send_notification(
            state.subscriptions.subscribers(update.thread_id), sm.THREAD_SETTINGS_UPDATED, update
        )
