"""Where `tether exec` runs its turn: the connection (a child app-server or `--remote` daemon),
the thread (new, resumed by id or name, or the newest with `--last`) and the settings it gets."""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from tether_client.client import Client
from tether_client.errors import RpcError, TetherClientError
from tether_client.subscription import Subscription
from tether_client.transport import StdioTransport, Transport
from tether_protocol.v2 import thread_lifecycle as tl

_GIT_CHECK_MESSAGE = "Not inside a trusted directory and --skip-git-repo-check was not specified."


class SessionError(Exception):
    """The thread to run on cannot be had (not found, refused): exit status 1."""


def inside_git_repo(path: Path) -> bool:
    """Whether `path` or a parent holds a repository's `.git`: a file (worktrees, submodules) or a
    directory with a `HEAD`. An empty `.git` is no repository, for git as here: a sandbox leaves
    one for as long as a command runs (the mount target of a protected path) or after a crash."""
    for parent in (path, *path.parents):
        marker = parent / ".git"
        if marker.is_file() or (marker / "HEAD").is_file():
            return True
    return False


def check_git(args: argparse.Namespace, cwd: Path) -> None:
    """Codex's guard: refuse to run outside a git repository unless told to."""
    if not args.skip_git_repo_check and not inside_git_repo(cwd):
        raise SessionError(_GIT_CHECK_MESSAGE)


def _toml_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def config_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """`-c`, `--enable`/`--disable` and `--add-dir` as a thread/start `config` (dotted keys)."""
    config: dict[str, Any] = {}
    for override in args.overrides:
        key, sep, value = override.partition("=")
        if not sep or not key.strip():
            raise SessionError(f"-c {override}: expected key=value")
        config[key.strip()] = _toml_value(value.strip())
    for feature in args.enable:
        config[f"features.{feature}"] = True
    for feature in args.disable:
        config[f"features.{feature}"] = False
    return config


def _key(override: str) -> str:
    return override.partition("=")[0].strip()


def _approval_override(args: argparse.Namespace) -> Any:
    """The last `-c approval_policy=…`, parsed, or None."""
    values = [o.partition("=")[2].strip() for o in args.overrides if _key(o) == "approval_policy"]
    return _toml_value(values[-1]) if values else None


def _app_server_command(args: argparse.Namespace) -> list[str]:
    command = [sys.executable, "-m", "tether_server", "app-server"]
    for override in args.overrides:
        # The approval policy goes with thread/start, whose wire takes every Codex value
        # (config.toml refuses `untrusted` and `on-failure`, which the TypeScript SDK may send).
        if _key(override) != "approval_policy":
            command += ["-c", override]
    for feature in args.enable:
        command += ["-c", f"features.{feature}=true"]
    for feature in args.disable:
        command += ["-c", f"features.{feature}=false"]
    base_url = os.environ.get("OPENAI_BASE_URL")
    if base_url and not any(_key(o) == "openai_base_url" for o in args.overrides):
        command += ["-c", f"openai_base_url={_quoted(base_url)}"]
    if args.profile:
        command += ["--profile", args.profile]
    if args.strict_config:
        command.append("--strict-config")
    return command


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _child_env() -> dict[str, str]:
    # The TypeScript SDK hands its `apiKey` over as CODEX_API_KEY; the built-in provider reads
    # OPENAI_API_KEY, so the child gets the key under that name too.
    key = os.environ.get("CODEX_API_KEY")
    return {"OPENAI_API_KEY": key} if key else {}


async def connect(args: argparse.Namespace, cwd: Path) -> tuple[Client, StdioTransport | None, Subscription]:
    """An initialized Client to a fresh child app-server, or to the `--remote` daemon.

    Also returns the child (for its stderr) and a subscription opened before `initialize`, so
    nothing the server says from the start (a config warning) is missed.
    """
    child: StdioTransport | None = None
    transport: Transport
    if args.remote:
        transport = await _remote_transport(args)
    else:
        child = await StdioTransport.spawn(_app_server_command(args), cwd=cwd, env=_child_env())
        transport = child
    client = Client(transport)
    notes = client.notifications()
    try:
        name = os.environ.get("CODEX_INTERNAL_ORIGINATOR_OVERRIDE") or "tether_exec"
        await client.initialize(name=name)
    except BaseException as exc:
        notes.close()
        await client.close()
        if child is not None and isinstance(exc, TetherClientError):
            tail = "\n".join(f"  app-server: {line}" for line in list(child.stderr_tail)[-20:])
            raise SessionError(f"the app-server did not start: {exc}\n{tail}".rstrip()) from exc
        raise
    return client, child, notes


async def _remote_transport(args: argparse.Namespace) -> Transport:
    from tether_client.websocket import WebSocketTransport, default_socket_path

    token = None
    if args.remote_auth_token_env:
        token = os.environ.get(args.remote_auth_token_env)
        if not token:
            raise SessionError(f"--remote-auth-token-env: ${args.remote_auth_token_env} is not set")
    url = str(args.remote)
    if url.startswith(("ws://", "wss://")):
        return await WebSocketTransport.connect(url, token=token)
    if url.startswith("unix://"):
        path = url.removeprefix("unix://") or default_socket_path()
        return await WebSocketTransport.connect_unix(path, token=token)
    raise SessionError(f"--remote {url}: expected unix://, unix://PATH, ws://HOST:PORT or wss://HOST:PORT")


def session_fields(args: argparse.Namespace, cwd: Path) -> dict[str, Any]:
    """thread/start|resume fields: exec's defaults (approvals `never`) and the flags."""
    config = config_overrides(args) if args.remote else {}
    config.pop("approval_policy", None)
    if args.remote and args.profile:
        config["profile"] = args.profile
    add_dirs = [str(d.expanduser().resolve()) for d in args.add_dirs]
    if add_dirs:
        config["sandbox_workspace_write.writable_roots"] = add_dirs
    fields: dict[str, Any] = {"cwd": str(cwd)}
    approval = _approval_override(args)
    if args.yolo:
        fields.update(sandbox="danger-full-access", approval_policy="never")
    elif args.full_auto:
        fields.update(sandbox="workspace-write", approval_policy="on-request")
    else:
        if args.sandbox:
            fields["sandbox"] = args.sandbox
        fields["approval_policy"] = approval or "never"  # by default nobody is there to answer
    if args.model:
        fields["model"] = args.model
    if config:
        fields["config"] = config
    return fields


async def open_thread(client: Client, args: argparse.Namespace, cwd: Path) -> tl.ThreadSessionResponse:
    """Start the thread, or resume the one `resume` names."""
    fields = session_fields(args, cwd)
    if not args.resume:
        if args.ephemeral:
            fields["ephemeral"] = True
        if args.thread_source:
            fields["thread_source"] = args.thread_source
        return await client.start_thread(**fields)
    thread_id = args.session_id or await _newest_thread(client, None if args.all else cwd)
    try:
        return await _resume(client, thread_id, fields)
    except RpcError as exc:
        if args.session_id is None:
            raise SessionError(f"cannot resume thread {thread_id}: {exc.message}") from exc
        named = await _thread_named(client, args.session_id)
        if named is None:
            raise SessionError(f"no thread with id or name {args.session_id!r}: {exc.message}") from exc
        return await _resume(client, named, fields)


async def _resume(client: Client, thread_id: str, fields: dict[str, Any]) -> tl.ThreadSessionResponse:
    body = tl.ThreadResumeParams.model_validate({**fields, "thread_id": thread_id})
    return await client.request_as("thread/resume", body, tl.ThreadSessionResponse)


async def _newest_thread(client: Client, cwd: Path | None) -> str:
    params: dict[str, Any] = {"limit": 1, "sortKey": "updated_at", "sortDirection": "desc"}
    if cwd is not None:
        params["cwd"] = str(cwd)
    listed = await client.request_raw("thread/list", params)
    threads = listed.get("data") or []
    if not threads:
        where = f" in {cwd}" if cwd is not None else ""
        raise SessionError(f"no recorded thread to resume{where} (use --all for any directory)")
    return str(threads[0]["id"])


async def _thread_named(client: Client, name: str) -> str | None:
    listed = await client.request_raw("thread/list", {"searchTerm": name, "limit": 50})
    for thread in listed.get("data") or []:
        if thread.get("name") == name:
            return str(thread["id"])
    return None
