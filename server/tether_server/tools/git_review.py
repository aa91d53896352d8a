"""What a code review looks at: a git diff for each `review/start` target, gathered on the host.

The git commands only read. They run with the repository's configuration defused where it could
run programs (external diff drivers, text conversion filters, an fsmonitor hook) or take locks:
the review of a repository someone else prepared must not execute anything from it.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from tether_server.errors import InvalidParams, InvalidRequest

MAX_DIFF_CHARS = 300_000
MAX_OUTPUT_BYTES = 2 * MAX_DIFF_CHARS
MAX_UNTRACKED_FILES = 200
GIT_TIMEOUT_S = 30.0
_SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "core.pager=cat")
_DIFF_FLAGS = ("--no-color", "--no-ext-diff", "--no-textconv")


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


async def _git(cwd: str, *args: str, ok_codes: tuple[int, ...] = (0,)) -> str:
    """git's output (at most `MAX_OUTPUT_BYTES`; a longer one is cut and git stopped)."""
    # Only what git needs: the daemon's secrets stay out of its environment.
    env = {key: os.environ[key] for key in ("PATH", "HOME") if key in os.environ}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *_SAFE_CONFIG,
            *args,
            cwd=cwd,
            env=env,
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
        raise InvalidRequest(f"git {args[0]} took longer than {GIT_TIMEOUT_S:.0f}s") from None
    if cut:
        return out.decode("utf-8", "replace")
    if proc.returncode not in ok_codes:
        detail = err.decode("utf-8", "replace").strip().splitlines()
        raise InvalidRequest(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
    return out.decode("utf-8", "replace")


async def _repository(cwd: str) -> None:
    try:
        inside = await _git(cwd, "rev-parse", "--is-inside-work-tree")
    except InvalidRequest:
        inside = ""
    if inside.strip() != "true":
        raise InvalidRequest(
            f"not a git repository: {cwd} (a review needs one, except with custom instructions)"
        )


def _name(kind: str, value: str) -> str:
    # A name starting with '-' would be read as an option by git.
    if not value.strip() or value.startswith("-") or "\0" in value:
        raise InvalidParams(f"Invalid params: not a {kind} name: {value!r}")
    return value


async def _commit_of(cwd: str, kind: str, name: str) -> str:
    try:
        return (await _git(cwd, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")).strip()
    except InvalidRequest:
        raise InvalidRequest(f"unknown {kind}: {name}") from None


def _clip(diff: str) -> str:
    if len(diff) <= MAX_DIFF_CHARS:
        return diff
    return diff[:MAX_DIFF_CHARS] + f"\n[... diff cut at {MAX_DIFF_CHARS} characters ...]\n"


def _request(what: str, how: str, diff: str) -> str:
    body = _clip(diff) if diff.strip() else "(the diff is empty: there is nothing to review)\n"
    return f"Review target: {what}\nThe diff below was produced with {how}.\n\n<diff>\n{body}</diff>"


async def _untracked(cwd: str) -> str:
    names = [
        n for n in (await _git(cwd, "ls-files", "-z", "--others", "--exclude-standard")).split("\0") if n
    ]
    # `--no-index` exits 1 when the files differ, which they always do here.
    parts = [
        await _git(cwd, "diff", *_DIFF_FLAGS, "--no-index", "--", "/dev/null", name, ok_codes=(0, 1))
        for name in names[:MAX_UNTRACKED_FILES]
    ]
    if len(names) > MAX_UNTRACKED_FILES:
        parts.append(f"[... {len(names) - MAX_UNTRACKED_FILES} more untracked files not shown ...]\n")
    return "".join(parts)


async def uncommitted(cwd: str) -> ReviewScope:
    """Staged, unstaged and untracked changes of the working tree."""
    await _repository(cwd)
    try:
        await _git(cwd, "rev-parse", "--verify", "--quiet", "HEAD")
        tracked = await _git(cwd, "diff", *_DIFF_FLAGS, "HEAD", "--")
    except InvalidRequest:  # no commit yet: everything staged is new
        tracked = await _git(cwd, "diff", *_DIFF_FLAGS, "--cached", "--")
        tracked += await _git(cwd, "diff", *_DIFF_FLAGS, "--")
    diff = tracked + await _untracked(cwd)
    how = "`git diff HEAD` (staged and unstaged changes) plus the untracked files as new files"
    return ReviewScope("current changes", _request("the uncommitted changes in the working tree", how, diff))


async def against_branch(cwd: str, branch: str) -> ReviewScope:
    """What the working tree changed since the current branch left `branch` (their merge base)."""
    await _repository(cwd)
    branch = _name("branch", branch)
    base = await _commit_of(cwd, "branch", branch)
    merge_base = (await _git(cwd, "merge-base", "HEAD", base)).strip()
    diff = await _git(cwd, "diff", *_DIFF_FLAGS, merge_base, "--")
    how = f"`git diff {merge_base}` (the merge base of HEAD and {branch})"
    return ReviewScope(
        f"changes against '{branch}'", _request(f"the changes against the base branch '{branch}'", how, diff)
    )


async def commit(cwd: str, sha: str, title: str | None) -> ReviewScope:
    """The changes commit `sha` introduced, with its message."""
    await _repository(cwd)
    sha = _name("commit", sha)
    full = await _commit_of(cwd, "commit", sha)
    shown = await _git(cwd, "show", *_DIFF_FLAGS, "--format=commit %H%nAuthor: %an%n%n%B", full, "--")
    subject = title or (await _git(cwd, "log", "-1", "--format=%s", full)).strip()
    short = sha[:7] if len(sha) >= 7 else full[:7]
    label = f"commit {short}: {subject}" if subject else f"commit {short}"
    return ReviewScope(label, _request(f"the commit {full}", f"`git show {full}`", shown))


async def custom(cwd: str, instructions: str) -> ReviewScope:
    """Free-form instructions; the working tree's uncommitted changes come along when there are any."""
    if not instructions.strip():
        raise InvalidParams("Invalid params: review instructions must not be empty")
    context = ""
    try:
        await _repository(cwd)
        scope = await uncommitted(cwd)
        context = "\n\nFor context, the uncommitted changes of the working tree:\n\n" + scope.request
    except InvalidRequest:
        pass  # not a repository: the instructions stand alone
    return ReviewScope(instructions, f"Review instructions from the user: {instructions}{context}")
