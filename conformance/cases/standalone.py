"""Methods outside threads: command/exec, model/list, config/read, fs/readFile."""

from __future__ import annotations

import base64
from pathlib import Path

from conformance.context import CaseContext
from conformance.manifest import case
from conformance.shape import error_code


@case("command.exec", requires=["command.exec"])
async def command_exec(ctx: CaseContext) -> None:
    """A buffered `command/exec` with output on both streams and a non-zero exit."""
    client = await ctx.ready_client()
    argv = ["/bin/sh", "-c", "echo out; echo err >&2; exit 7"]
    reply = await client.call("command/exec", {"command": argv, "cwd": str(ctx.workdir)})
    result = reply.get("result") or {}
    ctx.expect(
        "command.exec",
        (result.get("exitCode"), result.get("stdout"), result.get("stderr")),
        (7, "out\n", "err\n"),
        f"(exitCode, stdout, stderr) (reply {str(reply)[:200]})",
    )


@case("misc.model-and-config", requires=["model.list", "config.read"])
async def model_and_config(ctx: CaseContext) -> None:
    """`model/list`, and `config/read` against what `thread/start` resolves."""
    client = await ctx.ready_client()
    models = await client.call("model/list", {})
    result = models.get("result") or {}
    ctx.check(
        "model.list",
        isinstance(result.get("data"), list) and "nextCursor" in result,
        f"reply {str(models)[:300]}",
    )
    problems = ctx.schema.response_errors("model/list", result)
    ctx.check("model.list", not problems, "; ".join(problems))
    config = await client.call("config/read", {})
    started = await client.request("thread/start", {"cwd": str(ctx.workdir)})
    effective = (config.get("result") or {}).get("config") or {}
    ctx.expect("config.read", effective.get("model"), started["model"], "config.model vs thread/start model")


@case("fs.read-file", requires=["fs.read-file"])
async def read_file(ctx: CaseContext) -> None:
    """Read a file by absolute path, then a missing one."""
    client = await ctx.ready_client()
    path = ctx.workdir / "hello.txt"
    _write(path, "hello file\n")
    reply = await client.call("fs/readFile", {"path": str(path)})
    data = (reply.get("result") or {}).get("dataBase64")
    decoded = base64.b64decode(data).decode() if isinstance(data, str) else None
    ctx.expect("fs.read-file", decoded, "hello file\n", f"contents (reply {str(reply)[:200]})")
    missing = await client.call("fs/readFile", {"path": str(ctx.workdir / "missing.txt")})
    ctx.expect("fs.read-file", error_code(missing), -32603, "missing file")


def _write(path: Path, text: str) -> None:
    path.write_text(text)
