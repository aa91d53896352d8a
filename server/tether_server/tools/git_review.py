"""What a code review looks at: a git diff for each `review/start` target.

The git commands only read, and each runs inside the read-only sandbox without network (`Launch`):
a repository someone else prepared (or the model armed) configures programs that flags cannot all
defuse (`filter.<name>.clean` named by `.gitattributes`, `gpg.program` under `log.showSignature`,
...), so whatever it runs can neither write nor reach the network. The flags stay, for what they
do cover (external diff drivers, text conversion, an fsmonitor hook, signature checks, locks),
and for threads that run unconfined anyway.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tether_server.errors import InvalidParams, InvalidRequest, SandboxError
from tether_server.sandbox.runner import PreparedCommand

MAX_DIFF_CHARS = 300_000
MAX_OUTPUT_BYTES = 2 * MAX_DIFF_CHARS
MAX_UNTRACKED_FILES = 200
GIT_TIMEOUT_S = 30.0
_SAFE_CONFIG = (
    *("-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "core.pager=cat"),
    *("-c", "log.showSignature=false"),
)
_DIFF_FLAGS = ("--no-color", "--no-ext-diff", "--no-textconv")


Launch = Callable[[Path, list[str]], PreparedCommand]
"""(repository directory, git argv) → the command to spawn: git wrapped in the read-only sandbox
without network, or bare for a thread that runs unconfined. Raises `SandboxError` when it cannot."""


@dataclass(frozen=True)
class Repo:
    """Where the review's git commands run and how they are launched."""

    cwd: str
    launch: Launch


@dataclass(frozen=True)
class ReviewScope:
    """A review's label (what `enteredReviewMode` shows) and the reviewer's request (with the diff)."""

    label: str
    request: str


async def _bounded(stream: asyncio.StreamReader, limit: int) -> tuple[bytes, bool]:
    data = bytearray()
    while chunk := await stream.read(1 << 16):
        data += chunk
        if len(data) > limit:
            return bytes(data[:limit]), True
    return bytes(data), False


async def _git(repo: Repo, *args: str, ok_codes: tuple[int, ...] = (0,)) -> str:
    """git's output (at most `MAX_OUTPUT_BYTES`; a longer one is cut and git stopped)."""
    return await _command(repo, ["git", *_SAFE_CONFIG, *args], args[0], ok_codes)


async def _command(repo: Repo, argv: list[str], what: str, ok_codes: tuple[int, ...]) -> str:
    # Only what git needs: the daemon's secrets stay out of its environment.
    env = {key: os.environ[key] for key in ("PATH", "HOME") if key in os.environ}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    prepared = repo.launch(Path(repo.cwd), argv)
    try:
        return await _run(repo.cwd, prepared, env, what, ok_codes)
    finally:
        prepared.cleanup()


async def _run(
    cwd: str, prepared: PreparedCommand, env: dict[str, str], what: str, ok_codes: tuple[int, ...]
) -> str:
    try:
        proc = await asyncio.create_subprocess_exec(
            *prepared.argv,
            cwd=cwd,
            env=env,
            pass_fds=prepared.pass_fds,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError:
        raise InvalidRequest(f"cannot run git in {cwd}: no such directory, or git is not installed") from None
    except OSError as exc:
        raise InvalidRequest(f"cannot run git in {cwd}: {exc.strerror}") from None
    assert proc.stdout is not None and proc.stderr is not None
    try:
        async with asyncio.timeout(GIT_TIMEOUT_S):
            (out, cut), (err, _) = await asyncio.gather(
                _bounded(proc.stdout, MAX_OUTPUT_BYTES), _bounded(proc.stderr, MAX_OUTPUT_BYTES)
            )
            if cut:
                proc.kill()
            await proc.wait()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise InvalidRequest(f"git {what} took longer than {GIT_TIMEOUT_S:.0f}s") from None
    if cut:
        return out.decode("utf-8", "replace")
    detail = err.decode("utf-8", "replace").strip().splitlines()
    if prepared.setup_failed():
        # Not git's answer but bwrap's: saying "not a repository" would hide why.
        raise SandboxError(f"cannot run git in the sandbox: {detail[-1] if detail else proc.returncode}")
    if proc.returncode not in ok_codes:
        raise InvalidRequest(f"git {what} failed: {detail[-1] if detail else proc.returncode}")
    return out.decode("utf-8", "replace")


async def _repository(repo: Repo) -> None:
    try:
        inside = await _git(repo, "rev-parse", "--is-inside-work-tree")
    except InvalidRequest:
        inside = ""
    if inside.strip() != "true":
        raise InvalidRequest(
            f"not a git repository: {repo.cwd} (a review needs one, except with custom instructions)"
        )


def _name(kind: str, value: str) -> str:
    # A name starting with '-' would be read as an option by git.
    if not value.strip() or value.startswith("-") or "\0" in value:
        raise InvalidParams(f"Invalid params: not a {kind} name: {value!r}")
    return value


async def _commit_of(repo: Repo, kind: str, name: str) -> str:
    try:
        return (await _git(repo, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")).strip()
    except InvalidRequest:
        raise InvalidRequest(f"unknown {kind}: {name}") from None


def _clip(diff: str) -> str:
    if len(diff) <= MAX_DIFF_CHARS:
        return diff
    return diff[:MAX_DIFF_CHARS] + f"\n[... diff cut at {MAX_DIFF_CHARS} characters ...]\n"


def _request(what: str, how: str, diff: str) -> str:
    body = _clip(diff) if diff.strip() else "(the diff is empty: there is nothing to review)\n"
    return f"Review target: {what}\nThe diff below was produced with {how}.\n\n<diff>\n{body}</diff>"


async def _untracked(repo: Repo) -> str:
    names = [
        n for n in (await _git(repo, "ls-files", "-z", "--others", "--exclude-standard")).split("\0") if n
    ]
    shown = names[:MAX_UNTRACKED_FILES]
    diff = ""
    if shown:
        # One sandbox for all the files, not one each (a sandbox costs ~10 ms). `--no-index` exits 1
        # when the files differ, which they always do here; anything above is a failure.
        git = shlex.join(["git", *_SAFE_CONFIG, "diff", *_DIFF_FLAGS, "--no-index", "--", "/dev/null"])
        each = f'for name do {git} "$name"; status=$?; [ "$status" -le 1 ] || exit "$status"; done'
        diff = await _command(repo, ["/bin/sh", "-c", each, "sh", *shown], "diff", (0,))
    if len(names) > MAX_UNTRACKED_FILES:
        diff += f"[... {len(names) - MAX_UNTRACKED_FILES} more untracked files not shown ...]\n"
    return diff


async def uncommitted(repo: Repo) -> ReviewScope:
    """Staged, unstaged and untracked changes of the working tree."""
    await _repository(repo)
    try:
        await _git(repo, "rev-parse", "--verify", "--quiet", "HEAD")
        tracked = await _git(repo, "diff", *_DIFF_FLAGS, "HEAD", "--")
    except InvalidRequest:  # no commit yet: everything staged is new
        tracked = await _git(repo, "diff", *_DIFF_FLAGS, "--cached", "--")
        tracked += await _git(repo, "diff", *_DIFF_FLAGS, "--")
    diff = tracked + await _untracked(repo)
    how = "`git diff HEAD` (staged and unstaged changes) plus the untracked files as new files"
    return ReviewScope("current changes", _request("the uncommitted changes in the working tree", how, diff))


async def against_branch(repo: Repo, branch: str) -> ReviewScope:
    """What the working tree changed since the current branch left `branch` (their merge base)."""
    await _repository(repo)
    branch = _name("branch", branch)
    base = await _commit_of(repo, "branch", branch)
    merge_base = (await _git(repo, "merge-base", "HEAD", base)).strip()
    diff = await _git(repo, "diff", *_DIFF_FLAGS, merge_base, "--")
    how = f"`git diff {merge_base}` (the merge base of HEAD and {branch})"
    return ReviewScope(
        f"changes against '{branch}'", _request(f"the changes against the base branch '{branch}'", how, diff)
    )


async def commit(repo: Repo, sha: str, title: str | None) -> ReviewScope:
    """The changes commit `sha` introduced, with its message."""
    await _repository(repo)
    sha = _name("commit", sha)
    full = await _commit_of(repo, "commit", sha)
    shown = await _git(repo, "show", *_DIFF_FLAGS, "--format=commit %H%nAuthor: %an%n%n%B", full, "--")
    subject = title or (await _git(repo, "log", "-1", "--format=%s", full)).strip()
    short = sha[:7] if len(sha) >= 7 else full[:7]
    label = f"commit {short}: {subject}" if subject else f"commit {short}"
    return ReviewScope(label, _request(f"the commit {full}", f"`git show {full}`", shown))


async def custom(repo: Repo, instructions: str) -> ReviewScope:
    """Free-form instructions; the working tree's uncommitted changes come along when there are any."""
    if not instructions.strip():
        raise InvalidParams("Invalid params: review instructions must not be empty")
    context = ""
    try:
        await _repository(repo)
        scope = await uncommitted(repo)
        context = "\n\nFor context, the uncommitted changes of the working tree:\n\n" + scope.request
    except (InvalidRequest, SandboxError):
        pass  # not a repository, or no sandbox to read it in: the instructions stand alone
    return ReviewScope(instructions, f"Review instructions from the user: {instructions}{context}")
