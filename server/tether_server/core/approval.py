"""Asking for approval from inside a tool call: remembered grants, amendments, cancellation."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tether_server import log
from tether_server.core import events as ev
from tether_server.core.execpolicy import ExecRules, RulesError
from tether_server.core.ports import ApprovalDenied

Ask = Callable[[ev.ApprovalAsk], Awaitable[ev.ApprovalAnswer]]

_log = log.get("tether.core.tools")


class TurnCancelled(Exception):
    """The user answered an approval with `cancel`: the whole turn stops as interrupted."""


async def ask_once(
    ask: Ask | None,
    question: ev.ApprovalAsk,
    session_key: str,
    approved_for_session: set[str],
    exec_rules: ExecRules | None,
) -> tuple[bool, bool]:
    """(accepted, failed): `acceptForSession` is remembered under `session_key`, an amendment's rule
    is saved, `cancel` raises TurnCancelled; an error reply counts as declined and `failed`."""
    if session_key in approved_for_session:
        return True, False
    if ask is None:
        return False, False
    try:
        answer = await ask(question)
    except ApprovalDenied:
        return False, True
    if answer.amendment is not None:
        _save_amendment(exec_rules, list(answer.amendment))
    if answer.decision == "acceptForSession":
        approved_for_session.add(session_key)
    if answer.decision == "cancel":
        raise TurnCancelled
    return answer.decision in ev.ACCEPTED, False


def _save_amendment(rules: ExecRules | None, prefix: list[str]) -> None:
    """Persist the allow rule an `acceptWithExecpolicyAmendment` decision carries."""
    if rules is None:
        return
    try:
        rules.allow_prefix(prefix)
    except (RulesError, OSError) as exc:
        _log.warning("execpolicy.amendment_not_saved", error=str(exc))
