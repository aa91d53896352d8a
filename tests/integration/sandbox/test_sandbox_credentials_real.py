"""Credential stores of the daemon's user, and the daemon's own home, read by a sandboxed command.

A real daemon over stdio, the fake model runs `cat` through `exec_command` in a `read-only`
sandbox under real bwrap (issue 24 item 13c).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartServer
from tests.integration.sandbox.test_sandbox_daemon_escapes_real import _exec, _output, _thread, _turn

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

READ_ONLY = {"type": "readOnly"}
# Each file holds its own marker; none may appear in the command's output.
STORES = {
    ".config/gh/hosts.yml": "GH-TOKEN",
    ".config/git/credentials": "XDG-GIT-CREDENTIALS",
    ".git-credentials": "GIT-CREDENTIALS",
    ".kube/config": "KUBE-TOKEN",
    ".codex/auth.json": "CODEX-AUTH",
    ".docker/config.json": "DOCKER-AUTH",
    ".npmrc": "NPM-TOKEN",
    ".pypirc": "PYPI-PASSWORD",
    ".netrc": "NETRC-PASSWORD",
    ".aws/credentials": "AWS-SECRET",
    ".config/gcloud/credentials.db": "GCLOUD-TOKEN",
    ".cargo/credentials.toml": "CARGO-TOKEN",
    ".azure/msal_token_cache.json": "AZURE-TOKEN",
}


async def test_credential_stores_and_the_daemons_home_are_unreadable_in_the_sandbox(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    user_home = tmp_path / "user"
    for relative, marker in STORES.items():
        (user_home / relative).parent.mkdir(parents=True, exist_ok=True)
        (user_home / relative).write_text(marker)
    (user_home / ".codex" / "config.toml").write_text("model = 'kept-readable'")
    tether_home = tmp_path / "tether-home"
    tether_home.mkdir(mode=0o700)
    (tether_home / "planted-secret").write_text("TETHER-HOME-SECRET")
    paths = " ".join([f"~/{relative}" for relative in STORES] + [f"{tether_home}/planted-secret"])
    cmd = f"cat {paths} ~/.codex/config.toml 2>&1; echo done"
    fake_model.add(script.reply(_exec("c1", cmd)), script.text_reply("ok"))
    server = await start_server(home=tether_home, env={"HOME": str(user_home)})
    await _turn(server, await _thread(server, workdir), READ_ONLY)
    out = _output(fake_model, "c1")
    assert "done" in out and "kept-readable" in out, out
    leaked = [marker for marker in [*STORES.values(), "TETHER-HOME-SECRET"] if marker in out]
    assert leaked == [], out
