"""`item/tool/requestUserInput`: the model's questions (plan mode) as a server request, and the
client's answers as the core's. Sent and answered like an approval (`approvals.py`): to every
subscriber, the first answer wins, and its resolution is announced."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from tether_protocol.v2 import approvals as ap
from tether_server.core import events as ev

Params = dict[str, Any]

METHOD = "item/tool/requestUserInput"


def request(ask: ev.UserInputAsk) -> tuple[str, Params]:
    """(method, params) of the server request that puts the model's questions to the clients.

    Every question allows a free-form answer (`isOther`), as Codex marks them: the tool tells the
    model not to offer an "Other" choice itself."""
    questions = [
        {
            "id": q.id,
            "header": q.header,
            "question": q.question,
            "isOther": True,
            "isSecret": False,
            "options": None
            if q.options is None
            else [{"label": label, "description": text} for label, text in q.options],
        }
        for q in ask.questions
    ]
    params: Params = {
        "threadId": ask.thread_id,
        "turnId": ask.turn_id,
        "itemId": ask.item_id,
        "questions": questions,
        "isBlocking": True,
        "autoResolutionMs": None,
    }
    return METHOD, params


def answer(result: Params) -> ev.UserInputAnswer:
    """A client's answers as the core's; an answer of the wrong shape counts as none."""
    try:
        response = ap.ToolRequestUserInputResponse.model_validate(result)
    except ValidationError:
        return ev.UserInputAnswer(None)
    return ev.UserInputAnswer({qid: tuple(a.answers) for qid, a in response.answers.items()})
