"""A repository's own configuration never runs programs on the host (issue 24, items 3 and 4).

`review/start` on a prepared repository (attribute filter, signature verification), a model that
writes into an existing nested `.git`, `.codex` or `.agents`, and a nested repository the model
creates and arms: real daemon over stdio, real git, real bwrap.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import AppServer

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

# The test dirs live under /tmp, so /tmp must not be a writable root here.
WORKSPACE_WRITE = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
ANSWER = json.dumps(
    {
        "findings": [],
        "overall_correctness": "patch is correct",
        "overall_explanation": "Looks fine.",
        "overall_confidence_score": 0.5,
    }
)
# Passes the content through (a filter that printed nothing would hide the change) and leaves a
# marker where it could write one.
EVIL = '#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n'
IDENTITY = ("-c", "user.email=dev@example.com", "-c", "user.name=Dev")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def _repo(root: Path) -> Path:
    _git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("print('before')\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "initial")
    return root


def _evil(path: Path, marker: Path) -> Path:
    path.write_text(EVIL.format(marker=marker))
    path.chmod(0o755)
    return path


def _signed_commit(repo: Path) -> str:
    """A commit carrying a (bogus) signature, so that `log.showSignature` calls `gpg.program`."""
    tree, parent = _git(repo, "rev-parse", "HEAD^{tree}"), _git(repo, "rev-parse", "HEAD")
    body = (
        f"tree {tree}\nparent {parent}\nauthor Dev <dev@example.com> 1700000000 +0000\n"
        "committer Dev <dev@example.com> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n"
        "signed change\n"
    )
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=body,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


async def _thread(server: AppServer, cwd: Path, sandbox: str = "workspace-write") -> str:
    params = {"cwd": str(cwd), "sandbox": sandbox, "approvalPolicy": "never"}
    result = await server.request("thread/start", params)
    return str(result["thread"]["id"])


async def _review(server: AppServer, thread_id: str, target: dict[str, Any]) -> dict[str, Any]:
    mark = server.mark()
    await server.request("review/start", {"threadId": thread_id, "target": target})
    done = await server.notification("turn/completed", after=mark)
    return dict(done["params"]["turn"])


def _review_request(fake: FakeResponsesServer, index: int) -> str:
    return json.dumps(fake.requests[index].body["input"])


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _exec(call_id: str, cmd: str) -> script.OutputItem:
    return script.function_call("exec_command", {"cmd": cmd}, call_id)


async def test_a_review_of_a_prepared_repository_runs_its_filter_and_gpg_program_only_in_the_sandbox(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    repo = _repo(workdir)
    marker = tmp_path / "ran"
    _evil(repo / "evil.sh", marker)
    (repo / ".gitattributes").write_text("* filter=x\n")
    _git(repo, "config", "filter.x.clean", "./evil.sh")
    _git(repo, "config", "log.showSignature", "true")
    _git(repo, "config", "gpg.program", str(repo / "evil.sh"))
    signed = _signed_commit(repo)
    (repo / "app.py").write_text("print('after')\n")
    fake_model.add(script.text_reply(ANSWER), script.text_reply(ANSWER))
    server = await start_server()
    thread_id = await _thread(server, repo)

    turn = await _review(server, thread_id, {"type": "uncommittedChanges"})
    assert turn["status"] == "completed"
    assert "+print('after')" in _review_request(fake_model, 0)
    assert not marker.exists(), f"the repository's filter ran on the host: {marker.read_text()}"

    turn = await _review(server, thread_id, {"type": "commit", "sha": signed})
    assert turn["status"] == "completed"
    assert "signed change" in _review_request(fake_model, 1)
    assert not marker.exists(), f"the repository's gpg.program ran on the host: {marker.read_text()}"


async def test_the_model_cannot_write_into_an_existing_nested_git_codex_or_agents(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    sub = workdir / "vendor" / "lib"
    sub.mkdir(parents=True)
    _repo(sub)
    config_before = (sub / ".git" / "config").read_text()
    for name in (".codex", ".agents"):
        (sub / name).mkdir()
    cmds = [
        ("c1", "git -C vendor/lib config core.fsmonitor ./x"),
        ("c2", "echo '[core] fsmonitor = ./x' >> vendor/lib/.git/config"),
        ("c3", "touch vendor/lib/.codex/config.toml vendor/lib/.agents/planted; touch made"),
    ]
    fake_model.add(*(script.reply(_exec(call_id, cmd)) for call_id, cmd in cmds), script.text_reply("ok"))
    server = await start_server()
    mark = server.mark()
    params = {
        "threadId": await _thread(server, workdir),
        "input": [{"type": "text", "text": "go"}],
        "sandboxPolicy": WORKSPACE_WRITE,
    }
    await server.request("turn/start", params)
    await server.notification("turn/completed", after=mark)
    assert (workdir / "made").exists()  # the workspace itself stays writable
    assert (sub / ".git" / "config").read_text() == config_before
    assert not (sub / ".codex" / "config.toml").exists() and not (sub / ".agents" / "planted").exists()
    for call_id in ("c2", "c3"):
        assert "Read-only file system" in _output(fake_model, call_id)


async def test_a_nested_repository_the_model_arms_runs_nothing_under_tethers_own_git(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    arm = (
        "git init -q -b main sub && cd sub && "
        f"printf '#!/bin/sh\\necho \"$0\" >> {marker}\\ncat\\n' > evil.sh && chmod +x evil.sh && "
        "echo before > notes.txt && git add . && "
        "git -c user.email=m@example.com -c user.name=M commit -qm init && "
        "git config core.fsmonitor ./evil.sh && git config filter.x.clean ./evil.sh && "
        "echo '* filter=x' > .gitattributes && echo after > notes.txt && echo armed"
    )
    fake_model.add(script.reply(_exec("c1", arm)), script.text_reply("done"), script.text_reply(ANSWER))
    server = await start_server()
    mark = server.mark()
    params = {
        "threadId": await _thread(server, workdir),
        "input": [{"type": "text", "text": "go"}],
        "sandboxPolicy": WORKSPACE_WRITE,
    }
    await server.request("turn/start", params)
    await server.notification("turn/completed", after=mark)
    assert "armed" in _output(fake_model, "c1")
    assert (workdir / "sub" / ".git" / "config").exists()

    # Tether's host-side git calls on the nested repository: file search and a review of it.
    found = await server.request("fuzzyFileSearch", {"query": "notes", "roots": [str(workdir / "sub")]})
    assert [f["path"] for f in found["files"]] == ["notes.txt"]
    turn = await _review(server, await _thread(server, workdir / "sub"), {"type": "uncommittedChanges"})
    assert turn["status"] == "completed"
    assert "+after" in json.dumps(fake_model.requests[-1].body["input"])
    assert not marker.exists(), f"the nested repository's program ran on the host: {marker.read_text()}"


async def test_without_a_sandbox_a_review_is_refused_unless_the_thread_already_runs_unconfined(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    repo = _repo(workdir)
    marker = tmp_path / "ran"
    _evil(repo / "evil.sh", marker)
    (repo / ".gitattributes").write_text("* filter=x\n")
    _git(repo, "config", "filter.x.clean", "./evil.sh")
    (repo / "app.py").write_text("print('after')\n")
    # git but no bwrap on the daemon's PATH: the sandbox probe fails.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    fake_model.add(script.text_reply(ANSWER))
    server = await start_server(env={"PATH": str(bin_dir)})

    confined = await _thread(server, repo)
    mark = server.mark()
    reply = await server.call(
        "review/start", {"threadId": confined, "target": {"type": "uncommittedChanges"}}
    )
    assert "sandbox unavailable" in reply["error"]["message"] and "bubblewrap" in reply["error"]["message"]
    assert not [m for m in server.since(mark) if m.get("method") == "turn/started"]
    assert not marker.exists()

    # Such a thread runs the model's commands bare anyway; the review's git is no exception.
    unconfined = await _thread(server, repo, sandbox="danger-full-access")
    turn = await _review(server, unconfined, {"type": "uncommittedChanges"})
    assert turn["status"] == "completed"
    assert "+print('after')" in _review_request(fake_model, 0)
