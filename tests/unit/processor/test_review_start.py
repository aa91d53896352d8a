"""`review/start` in process against the fake model, on real git repositories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.support.memory import MemoryClient
from tests.unit.processor.conftest import Connect

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

FINDING = {
    "title": "[P1] Loop skips the last element",
    "body": "`range(len(xs) - 1)` stops one short, so the last item is never printed.",
    "confidence_score": 0.8,
    "priority": 1,
    "code_location": {"absolute_file_path": "/repo/app.py", "line_range": {"start": 2, "end": 3}},
}
ANSWER = {
    "findings": [FINDING],
    "overall_correctness": "patch is incorrect",
    "overall_explanation": "The change drops the last element.",
    "overall_confidence_score": 0.7,
}
RENDERED = (
    "The change drops the last element.\n\nReview comment:\n\n"
    "- [P1] Loop skips the last element — /repo/app.py:2-3\n"
    "  `range(len(xs) - 1)` stops one short, so the last item is never printed."
)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _repo(root: Path) -> Path:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "dev@example.com")
    _git(root, "config", "user.name", "Dev")
    (root / "app.py").write_text("def f(xs):\n    for i in range(len(xs)):\n        print(xs[i])\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "initial app")
    return root


async def _thread(client: MemoryClient, cwd: Path) -> str:
    return str((await client.request("thread/start", {"cwd": str(cwd)}))["thread"]["id"])


def _user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        part.get("text", "")
        for entry in body["input"]
        if entry.get("role") == "user"
        for part in entry.get("content") or []
    )


def _events(client: MemoryClient, mark: int) -> list[str]:
    out = []
    for message in client.since(mark):
        method = message.get("method", "")
        if method.startswith(("item/", "turn/")) and "id" not in message:
            item = message["params"].get("item")
            out.append(f"{method} {item['type']}" if item else method)
    return out


async def test_a_review_of_uncommitted_changes_runs_as_one_turn(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    (repo / "app.py").write_text("def f(xs):\n    for i in range(len(xs) - 1):\n        print(xs[i])\n")
    (repo / "notes.txt").write_text("an untracked file\n")
    fake_model.add(script.text_reply(json.dumps(ANSWER)))
    client = await connect()
    thread_id = await _thread(client, repo)
    mark = client.mark()
    # As the TUI's `/review` sends it.
    params = {"threadId": thread_id, "target": {"type": "uncommittedChanges"}, "delivery": "inline"}
    started = await client.request("review/start", params, request_id="review")
    assert started["reviewThreadId"] == thread_id and started["turn"]["status"] == "inProgress"
    done = await client.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert done["params"]["turn"]["id"] == started["turn"]["id"]
    usage = await client.notification("thread/tokenUsage/updated", after=mark)
    assert usage["params"]["turnId"] == started["turn"]["id"]
    assert usage["params"]["tokenUsage"]["last"]["totalTokens"] > 0
    answered = [m.get("id") for m in client.since(mark)].index("review")
    started_at = [m.get("method") for m in client.since(mark)].index("turn/started")
    assert answered < started_at, "the answer comes before the review turn's events"
    assert _events(client, mark) == [
        "turn/started",
        "item/started enteredReviewMode",
        "item/completed enteredReviewMode",
        "item/started exitedReviewMode",
        "item/completed exitedReviewMode",
        "item/started agentMessage",
        "item/completed agentMessage",
        "turn/completed",
    ]
    entered = await client.notification("item/completed", after=mark)
    assert entered["params"]["item"]["review"] == "current changes"
    exited = await client.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "exitedReviewMode"
    )
    assert exited["params"]["item"]["review"] == RENDERED
    assert done["params"]["turn"]["items"][0]["text"] == RENDERED

    body = fake_model.requests[0].body
    fmt = body["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["strict"] is True
    assert set(fmt["schema"]["required"]) == set(ANSWER)
    assert not body.get("tools")
    request = _user_text(body)
    assert "-    for i in range(len(xs)):" in request and "+    for i in range(len(xs) - 1):" in request
    assert "+an untracked file" in request

    read = await client.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    (turn,) = read["thread"]["turns"]
    assert [i["type"] for i in turn["items"]] == ["enteredReviewMode", "exitedReviewMode", "agentMessage"]

    # The findings are in the thread's history: the next turn can act on them.
    fake_model.add(script.text_reply("fixed"))
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "fix it"}]})
    await client.notification("turn/completed", after=mark)
    follow_up = json.dumps(fake_model.requests[1].body["input"])
    assert "Loop skips the last element" in follow_up and "current changes" in follow_up


async def test_base_branch_and_commit_targets_review_what_they_name(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-qb", "feature")
    (repo / "feature.py").write_text("FLAG = True\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "add the feature flag")
    sha = _git(repo, "rev-parse", "HEAD")
    (repo / "app.py").write_text("print('work in progress')\n")
    fake_model.add(script.text_reply(json.dumps({**ANSWER, "findings": []})))
    fake_model.add(script.text_reply("not json at all"))
    client = await connect()
    thread_id = await _thread(client, repo)

    mark = client.mark()
    target = {"type": "baseBranch", "branch": "main"}
    await client.request("review/start", {"threadId": thread_id, "target": target})
    await client.notification("turn/completed", after=mark)
    entered = await client.notification("item/completed", after=mark)
    assert entered["params"]["item"]["review"] == "changes against 'main'"
    request = _user_text(fake_model.requests[0].body)
    assert base in request and "+FLAG = True" in request and "+print('work in progress')" in request
    exited = await client.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "exitedReviewMode"
    )
    assert exited["params"]["item"]["review"] == "The change drops the last element."

    mark = client.mark()
    target = {"type": "commit", "sha": sha[:10]}
    await client.request("review/start", {"threadId": thread_id, "target": target})
    await client.notification("turn/completed", after=mark)
    entered = await client.notification("item/completed", after=mark)
    assert entered["params"]["item"]["review"] == f"commit {sha[:7]}: add the feature flag"
    request = _user_text(fake_model.requests[1].body)
    assert "+FLAG = True" in request and "add the feature flag" in request
    assert "work in progress" not in request, "a commit review shows that commit only"
    exited = await client.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "exitedReviewMode"
    )
    assert exited["params"]["item"]["review"] == "not json at all"


async def test_custom_instructions_label_the_review(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply(json.dumps(ANSWER)))
    client = await connect()
    thread_id = await _thread(client, tmp_path)
    mark = client.mark()
    target = {"type": "custom", "instructions": "Look for SQL injection in the handlers"}
    await client.request("review/start", {"threadId": thread_id, "target": target})
    await client.notification("turn/completed", after=mark)
    entered = await client.notification("item/completed", after=mark)
    assert entered["params"]["item"]["review"] == "Look for SQL injection in the handlers"
    assert "Look for SQL injection in the handlers" in _user_text(fake_model.requests[0].body)


async def test_bad_targets_are_refused_and_start_no_turn(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    plain = tmp_path / "plain"
    plain.mkdir()
    client = await connect()
    in_repo, not_repo = await _thread(client, repo), await _thread(client, plain)
    mark = client.mark()
    cases: list[tuple[str, dict[str, Any], str]] = [
        (not_repo, {"type": "uncommittedChanges"}, "not a git repository"),
        (in_repo, {"type": "baseBranch", "branch": "no-such-branch"}, "unknown branch: no-such-branch"),
        (in_repo, {"type": "commit", "sha": "0123456789abcdef"}, "unknown commit"),
        (in_repo, {"type": "baseBranch", "branch": f"--output={tmp_path}/written"}, "not a branch name"),
        (in_repo, {"type": "custom", "instructions": "  "}, "must not be empty"),
        (in_repo, {"type": "nonsense"}, "Invalid params"),
    ]
    for thread_id, target, message in cases:
        reply = await client.call("review/start", {"threadId": thread_id, "target": target})
        assert message in reply["error"]["message"], (target, reply)
    detached = await client.call(
        "review/start",
        {"threadId": in_repo, "target": {"type": "uncommittedChanges"}, "delivery": "detached"},
    )
    assert detached["error"]["code"] == -32602
    assert not (tmp_path / "written").exists()
    assert not [m for m in client.since(mark) if m.get("method") == "turn/started"]
    assert not fake_model.requests


async def test_a_running_review_cannot_be_steered_but_can_be_interrupted(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    fake_model.add(script.reply(script.gated("hold"), script.message(json.dumps(ANSWER))))
    client = await connect()
    thread_id = await _thread(client, repo)
    mark = client.mark()
    started = await client.request(
        "review/start", {"threadId": thread_id, "target": {"type": "custom", "instructions": "x"}}
    )
    turn_id = started["turn"]["id"]
    await fake_model.wait_for_gate("hold")
    steer = await client.call(
        "turn/steer",
        {"threadId": thread_id, "expectedTurnId": turn_id, "input": [{"type": "text", "text": "also this"}]},
    )
    assert steer["error"]["data"]["codexErrorInfo"] == {"activeTurnNotSteerable": {"turnKind": "review"}}
    second = await client.call(
        "review/start", {"threadId": thread_id, "target": {"type": "uncommittedChanges"}}
    )
    assert "while a turn is running" in second["error"]["message"]
    await client.request("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    done = await client.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    exited = await client.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "exitedReviewMode"
    )
    assert exited["params"]["item"]["review"] == "Review interrupted."
    fake_model.release("hold")


async def test_a_review_runs_nothing_the_repository_configures(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\necho 'fake diff'\n")
    evil.chmod(0o755)
    _git(repo, "config", "diff.external", str(evil))
    _git(repo, "config", "core.fsmonitor", str(evil))
    _git(repo, "config", "diff.evil.textconv", str(evil))
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    (repo / "app.py").write_text("print('changed')\n")
    fake_model.add(script.text_reply(json.dumps(ANSWER)))
    client = await connect()
    thread_id = await _thread(client, repo)
    mark = client.mark()
    await client.request("review/start", {"threadId": thread_id, "target": {"type": "uncommittedChanges"}})
    await client.notification("turn/completed", after=mark)
    assert "+print('changed')" in _user_text(fake_model.requests[0].body)
    assert not marker.exists(), "the repository's configured program ran"
