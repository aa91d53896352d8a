"""A thread's `gitInfo`, as Codex 0.169.0 reports it (observed on the real binary, issue 25).

Read when the thread starts (null in the thread/start answer and thread/started, since the thread
is not stored yet), then the same in read, list and resume, however the repository moves on; a
fork reads the repository again. sha, branch (null when detached or unborn), the origin's URL; no
repository at all, or one where none of the three is known, is null. The repository's files are
read, never run: a `.git` symlinked out of the project, or a FIFO for HEAD, gives no git info and
no hang.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def make_repo(
    path: Path, branch: str = "feature/x", origin: str | None = "https://example.com/o/r.git"
) -> str:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    (path / "README.md").write_text("x\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "one")
    if origin is not None:
        git(path, "remote", "add", "origin", origin)
    return git(path, "rev-parse", "HEAD")


async def _started(server: RpcClient, cwd: Path) -> dict[str, Any]:
    answer: dict[str, Any] = await server.request("thread/start", {"cwd": str(cwd)})
    return answer


async def _turn(server: RpcClient, thread_id: str) -> None:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)


async def _git_info_after_a_turn(server: RpcClient, cwd: Path) -> Any:
    tid = (await _started(server, cwd))["thread"]["id"]
    await _turn(server, tid)
    return (await server.request("thread/read", {"threadId": tid}))["thread"]["gitInfo"]


async def test_git_info_is_read_at_start_and_shown_once_the_thread_is_stored(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(3)))
    repo = tmp_path / "repo"
    sha = make_repo(repo)
    home = tmp_path / "home"
    server = await start_app(home=home)
    mark = server.mark()
    started = await _started(server, repo)
    tid = started["thread"]["id"]
    assert started["thread"]["gitInfo"] is None
    announced = await server.notification("thread/started", after=mark)
    assert announced["params"]["thread"]["gitInfo"] is None
    git(repo, "checkout", "-q", "-b", "moved-on")  # after the start: not what the thread reports
    await _turn(server, tid)
    expected = {"sha": sha, "branch": "feature/x", "originUrl": "https://example.com/o/r.git"}
    assert (await server.request("thread/read", {"threadId": tid}))["thread"]["gitInfo"] == expected
    listed = await server.request("thread/list", {})
    assert [t["gitInfo"] for t in listed["data"]] == [expected]

    fork = await server.request("thread/fork", {"threadId": tid, "excludeTurns": True})
    assert fork["thread"]["gitInfo"] == {**expected, "branch": "moved-on"}
    assert await server.close() == 0

    again = await start_app(home=home)
    resumed = await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    assert resumed["thread"]["gitInfo"] == expected


async def test_git_info_from_a_subfolder_a_detached_head_an_unborn_branch_and_no_repository(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(4)))
    repo = tmp_path / "repo"
    sha = make_repo(repo, origin="git@example.com:o/r.git")
    git(repo, "checkout", "-q", "--detach")
    git(repo, "pack-refs", "--all")  # the sha of a packed ref is found too
    (repo / "sub").mkdir()
    unborn = tmp_path / "unborn"
    unborn.mkdir()
    git(unborn, "init", "-q", "-b", "trunk")
    git(unborn, "remote", "add", "origin", "https://example.com/u.git")
    bare_unborn = tmp_path / "bare-unborn"
    bare_unborn.mkdir()
    git(bare_unborn, "init", "-q")
    plain = tmp_path / "plain"
    plain.mkdir()
    server = await start_app()
    subfolder = await _git_info_after_a_turn(server, repo / "sub")
    assert subfolder == {"sha": sha, "branch": None, "originUrl": "git@example.com:o/r.git"}
    assert await _git_info_after_a_turn(server, unborn) == {
        "sha": None,
        "branch": None,
        "originUrl": "https://example.com/u.git",
    }
    assert await _git_info_after_a_turn(server, bare_unborn) is None
    assert await _git_info_after_a_turn(server, plain) is None


async def test_a_git_folder_symlinked_out_of_the_project_or_a_fifo_head_gives_no_git_info(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(3)))
    elsewhere = tmp_path / "elsewhere"
    make_repo(elsewhere)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(elsewhere / ".git")
    inside = tmp_path / "inside"
    sha = make_repo(inside / "real")
    (inside / ".git").symlink_to(inside / "real" / ".git")
    fifo = tmp_path / "fifo"
    make_repo(fifo)
    (fifo / ".git" / "HEAD").unlink()
    os.mkfifo(fifo / ".git" / "HEAD")
    server = await start_app()
    assert await _git_info_after_a_turn(server, linked) is None
    # A symlink that stays inside the project is followed, as git does.
    assert (await _git_info_after_a_turn(server, inside))["sha"] == sha
    # Nobody writes the FIFO: reading it would hang. Without a HEAD it is no repository.
    assert await _git_info_after_a_turn(server, fifo) is None
