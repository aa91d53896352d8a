"""Checked by mypy, never run: a notification cannot be sent with another one's params.

Every `type: ignore` below marks a call mypy must refuse (`misc`: no type for the spec's params
fits both arguments; `arg-type`: not a spec, or not params of one). The project runs mypy with
`warn_unused_ignores`, so if the senders' types ever stopped refusing one, its ignore would
become unused and mypy would fail; `test_notification_typing` runs exactly that check.
"""

from __future__ import annotations

from tether_protocol import server_methods as sm
from tether_protocol.spec import WireParams
from tether_protocol.v2 import notifications as n
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import send_notification


def the_right_model_is_accepted(conns: list[Connection]) -> None:
    send_notification(conns, sm.THREAD_ARCHIVED, n.ThreadArchivedNotification(thread_id="t"))
    shaped: WireParams[n.ThreadArchivedNotification] = WireParams({"threadId": "t"})
    send_notification(conns, sm.THREAD_ARCHIVED, shaped)


def a_sibling_model_is_refused(conns: list[Connection]) -> None:
    deleted = n.ThreadDeletedNotification(thread_id="t")
    send_notification(conns, sm.THREAD_ARCHIVED, deleted)  # type: ignore[misc]


def another_notifications_wire_params_are_refused(conns: list[Connection]) -> None:
    closed: WireParams[n.ThreadClosedNotification] = WireParams({"threadId": "t"})
    send_notification(conns, sm.THREAD_ARCHIVED, closed)  # type: ignore[misc]


def a_bare_dict_or_a_method_name_is_refused(conns: list[Connection]) -> None:
    send_notification(conns, sm.THREAD_ARCHIVED, {"threadId": "t"})  # type: ignore[arg-type]
    note = n.ThreadArchivedNotification(thread_id="t")
    send_notification(conns, "thread/archived", note)  # type: ignore[arg-type]
