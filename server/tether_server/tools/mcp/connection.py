"""One MCP server: a supervised connection that starts in the background and restarts after a crash.

The SDK's session lives inside one task (its context managers must be entered and left there);
calls from turns go through the session object while that task keeps it open.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager, suppress
from typing import Any

import anyio
import httpx2
import mcp.types as mt
from mcp import ClientSession, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError

from tether_server import log
from tether_server.tools.mcp import http_bound, oauth
from tether_server.tools.mcp.calls import CallOrigin, Json, McpCallError
from tether_server.tools.mcp.config import ServerConfig
from tether_server.tools.mcp.launch import server_argv
from tether_server.tools.mcp.stdio import MAX_MESSAGE_BYTES, bounded_stdio_client

_log = log.get("tether.mcp")

RESTART_BACKOFF_S = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
StatusListener = Callable[[str, str, str | None], None]
"""(server name, starting | ready | failed | cancelled, error)."""
Elicit = Callable[["ServerConnection", Json], Awaitable[Json]]
"""Ask a client: the MCP elicitation params in, {action, content} out."""


class _WatchedStream:
    """The transport's receive stream, noting end of stream (the server went away)."""

    def __init__(self, inner: Any, closed: asyncio.Event) -> None:
        self._inner = inner
        self._closed = closed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _WatchedStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed.set()
        await self._inner.__aexit__(*exc)

    def __aiter__(self) -> _WatchedStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except (StopAsyncIteration, anyio.EndOfStream, anyio.ClosedResourceError):
            self._closed.set()
            raise

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._closed.set()
            raise


class ServerConnection:
    """Connect, list tools, keep the session open; report each change of state."""

    def __init__(self, config: ServerConfig, on_status: StatusListener, elicit: Elicit) -> None:
        self.config = config
        self.state = "starting"  # starting | ready | failed | cancelled | disabled
        self.error: str | None = None
        self.tools: list[mt.Tool] = []
        self.resources: list[mt.Resource] = []
        self.server_info: mt.Implementation | None = None
        self.capabilities: mt.ServerCapabilities | None = None
        self.crashes = 0
        self.origins: list[CallOrigin] = []
        self._on_status = on_status
        self._elicit = elicit
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._changed = asyncio.Event()
        """Set (and replaced) at each change of state, for `wait_started`."""
        self._fault: str | None = None
        """Why the transport ended the session (a message over the bound), for the calls it failed."""

    @property
    def name(self) -> str:
        return self.config.name

    def start(self) -> None:
        if not self.config.enabled:
            self.state = "disabled"
            return
        self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.name}")

    async def stop(self) -> None:
        self._stopping = True
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        if self.state == "starting":
            # Cancelled before its first step: nothing else will end a `wait_started`.
            self._report("cancelled")

    def _report(self, state: str, error: str | None = None) -> None:
        self.state, self.error = state, error
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        self._on_status(self.name, state, error)

    async def wait_started(self) -> None:
        """Return once the server is past `starting`, or after its startup timeout at the latest
        (counted from now: an attempt that began earlier fails sooner on its own)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.startup_timeout_sec
        while self.state == "starting":
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            with suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    async def _supervise(self) -> None:
        attempt = 0
        while not self._stopping:
            self._report("starting")
            crashed = await self._run_once()
            if not crashed or self._stopping:
                return
            # Only a server that came up and then went away is restarted; one that never starts
            # stays failed until the configuration is reloaded.
            delay = RESTART_BACKOFF_S[min(attempt, len(RESTART_BACKOFF_S) - 1)]
            attempt += 1
            await asyncio.sleep(delay)

    async def _run_once(self) -> bool:
        """Run one session; True if it was ready and then ended (a crash)."""
        closed = asyncio.Event()
        ready = reset = timed_out = False
        self._fault = None
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        _WatchedStream(read, closed),
                        write,
                        elicitation_callback=self._on_elicit,
                        client_info=mt.Implementation(name="tether", version="0.1.0"),
                    )
                )
                try:
                    with anyio.fail_after(self.config.startup_timeout_sec):
                        init = await session.initialize()
                        tools = await _all_tools(session)
                        resources = await _all_resources(session, init.capabilities)
                except TimeoutError:
                    # Said at the timeout, not seconds later once the silent server is stopped:
                    # a turn waiting for it goes on now, and knows why.
                    timed_out = True
                    self._report("failed", _startup_timed_out(self.config))
                    return False
                self.server_info, self.capabilities = init.server_info, init.capabilities
                self.tools = [t for t in tools if self.config.allows(t.name)]
                self.resources = resources
                self._session, ready = session, True
                self._report("ready")
                await closed.wait()
                if self._fault is not None and not self._stopping:
                    # Stopping the server takes seconds: say so now, and let nobody call into it meanwhile.
                    self._session, reset = None, True
                    self.crashes += 1
                    self._report("failed", f"MCP server reset: {self._fault}")
        except asyncio.CancelledError:
            self._session = None
            if self._stopping:
                self._report("cancelled")
            raise
        except BaseException as exc:  # noqa: BLE001 - whatever the server or transport did, report it
            self._session = None
            if reset:
                return True
            if timed_out:
                return False
            if not ready and _timed_out(exc):
                self._report("failed", _startup_timed_out(self.config))
                return False
            detail = _describe(exc)
            if ready:
                self.crashes += 1
                self._report("failed", f"MCP server exited: {detail}")
                return True
            self._report("failed", f"MCP server failed to start: {detail}")
            return False
        self._session = None
        if reset:
            return True
        if ready and not self._stopping:
            self.crashes += 1
            self._report("failed", "MCP server exited")
            return True
        return False

    def _transport(self) -> Any:
        cfg = self.config
        if cfg.url is None:
            env = dict(cfg.env) or None
            command, args = server_argv(str(cfg.command), cfg.args, env, cfg.cwd)
            params = StdioServerParameters(command=command, args=args, env=env, cwd=cfg.cwd)
            return bounded_stdio_client(params, self._on_fault, errlog=sys.stderr)
        return _http(cfg)

    def _on_fault(self, why: str) -> None:
        self._fault = why

    async def _on_elicit(
        self, context: ClientRequestContext, params: mt.ElicitRequestParams
    ) -> mt.ElicitResult | mt.ErrorData:
        answer = await self._elicit(self, params.model_dump(mode="json", by_alias=True, exclude_none=True))
        action = answer.get("action")
        if action not in ("accept", "decline", "cancel"):
            action = "cancel"
        content = answer.get("content") if action == "accept" else None
        return mt.ElicitResult(action=action, content=content if isinstance(content, dict) else None)

    def _live(self) -> ClientSession:
        if self._session is None or self.state != "ready":
            raise McpCallError(f"MCP server '{self.name}' is not connected ({self.error or self.state})")
        return self._session

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        origin: CallOrigin | None,
        progress: ProgressFnT | None = None,
        timeout_s: float | None = None,
    ) -> mt.CallToolResult:
        session = self._live()
        timeout = timeout_s or self.config.tool_timeout_sec
        if origin is not None:
            self.origins.append(origin)
        try:
            with _as_call_error(f"tool call timed out after {timeout:g}s"), anyio.fail_after(timeout):
                result = await session.call_tool(tool, arguments, progress_callback=progress)
        except McpCallError:
            if self._fault is not None:
                raise McpCallError(self._fault) from None
            raise
        finally:
            if origin is not None:
                self.origins.remove(origin)
        if not isinstance(result, mt.CallToolResult):
            raise McpCallError("the server answered with a result Tether does not understand")
        return result

    async def list_resources(self) -> list[mt.Resource]:
        """The server's resources, asked now (every page)."""
        session = self._live()
        found: list[mt.Resource] = []
        cursor: str | None = None
        with _as_call_error("resource list timed out"), anyio.fail_after(self.config.tool_timeout_sec):
            while True:
                page = await session.list_resources(
                    params=mt.PaginatedRequestParams(cursor=cursor) if cursor else None
                )
                found.extend(page.resources)
                cursor = page.next_cursor
                if not cursor:
                    return found

    async def list_resource_templates(self) -> list[mt.ResourceTemplate]:
        """The server's resource templates, asked now (every page)."""
        session = self._live()
        found: list[mt.ResourceTemplate] = []
        cursor: str | None = None
        with (
            _as_call_error("resource template list timed out"),
            anyio.fail_after(self.config.tool_timeout_sec),
        ):
            while True:
                params = mt.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_resource_templates(params=params)
                found.extend(page.resource_templates)
                cursor = page.next_cursor
                if not cursor:
                    return found

    async def read_resource(self, uri: str) -> mt.ReadResourceResult:
        session = self._live()
        with _as_call_error("resource read timed out"), anyio.fail_after(self.config.tool_timeout_sec):
            return await session.read_resource(uri)


@contextmanager
def _as_call_error(timed_out: str) -> Iterator[None]:
    """A request to the server fails as McpCallError: its own error, a timeout, or the transport's."""
    try:
        yield
    except TimeoutError:
        raise McpCallError(timed_out) from None
    except MCPError as exc:
        raise McpCallError(exc.error.message) from None
    except Exception as exc:  # noqa: BLE001 - the transport's failure is the call's error
        raise McpCallError(_describe(exc)) from None


def _startup_timed_out(cfg: ServerConfig) -> str:
    """Codex's words, which say what to change."""
    name, limit = cfg.name, cfg.startup_timeout_sec
    return (
        f"MCP client for `{name}` timed out after {limit:g} seconds. Add or adjust `startup_timeout_sec` "
        f"in your config.toml:\n[mcp_servers.{name}]\nstartup_timeout_sec = XX"
    )


def _timed_out(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(_timed_out(e) for e in exc.exceptions)
    return isinstance(exc, TimeoutError)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    return str(exc) or type(exc).__name__


@asynccontextmanager
async def _http(cfg: ServerConfig) -> AsyncIterator[Any]:
    headers = dict(cfg.http_headers)
    if cfg.bearer_token_env_var:
        token = os.environ.get(cfg.bearer_token_env_var)
        if not token:
            raise McpCallError(f"environment variable {cfg.bearer_token_env_var} is not set")
        headers["Authorization"] = f"Bearer {token}"
    client = httpx2.AsyncClient(
        auth=oauth.connection_auth(cfg),
        headers={**headers, **http_bound.IDENTITY},
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [http_bound.response_hook(MAX_MESSAGE_BYTES)]},
    )
    transport = streamable_http_client(str(cfg.url), http_client=client, max_sse_event_size=MAX_MESSAGE_BYTES)
    async with client, transport as streams:
        yield streams


async def _all_tools(session: ClientSession) -> list[mt.Tool]:
    tools: list[mt.Tool] = []
    cursor: str | None = None
    for _page in range(100):
        page = await session.list_tools(params=mt.PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def _all_resources(session: ClientSession, caps: mt.ServerCapabilities | None) -> list[mt.Resource]:
    if caps is None or caps.resources is None:
        return []
    try:
        return list((await session.list_resources()).resources)
    except Exception:  # noqa: BLE001 - resources are optional; tools still work
        return []
