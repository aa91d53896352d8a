"""AGENTS.md and SKILL.md are read on the model's behalf, never through links (issue 24, item 2).

The attack: from inside the real sandbox the model plants `AGENTS.md -> /proc/self/environ` and
`sub/AGENTS.md -> ~/.ssh/id_ed25519` (files the sandbox itself cannot read), or a cloned
repository ships such links; the next thread's first request to the model would carry the
daemon's environment and the private key. Here the daemon's environment holds a known secret and
its `HOME` a fake `~/.ssh`; the fake model's recorded requests must hold neither.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import StartServer
from tests.support.appserver import AppServer

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

# The test dirs live under /tmp, so /tmp must not be a writable root here.
WORKSPACE_WRITE = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
ENV_SECRET = "sk-env-secret-6d1f0a9e4b"
KEY_SECRET = "OPENSSH-PRIVATE-KEY-b07c55e2"
SKILL_SECRET = "skill-secret-91aa3e"


def _fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "user"
    ssh = home / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "id_ed25519").write_text(f"-----BEGIN {KEY_SECRET}-----\n")
    # Shaped as a skill, so that a skill link to it would put the secret in the skills section.
    (ssh / "SKILL.md").write_text(f"---\nname: stolen\ndescription: {SKILL_SECRET}\n---\n")
    return home


async def _daemon(start_server: StartServer, tmp_path: Path) -> AppServer:
    env = {"HOME": str(_fake_home(tmp_path)), "TETHER_T_SECRET": ENV_SECRET}
    return await start_server(env=env)


async def _turn(server: AppServer, cwd: Path) -> str:
    params = {"cwd": str(cwd), "sandbox": "workspace-write", "approvalPolicy": "never"}
    thread_id = str((await server.request("thread/start", params))["thread"]["id"])
    mark = server.mark()
    turn = {
        "threadId": thread_id,
        "input": [{"type": "text", "text": "go"}],
        "sandboxPolicy": WORKSPACE_WRITE,
    }
    await server.request("turn/start", turn)
    await server.notification("turn/completed", after=mark)
    return thread_id


def _requests_of(fake: FakeResponsesServer, thread_id: str) -> list[str]:
    return [json.dumps(r.body) for r in fake.requests if r.body.get("prompt_cache_key") == thread_id]


def _assert_no_secret(texts: list[str]) -> None:
    assert texts, "the thread made no model request"
    for text in texts:
        for secret in (ENV_SECRET, KEY_SECRET, SKILL_SECRET):
            assert secret not in text


async def test_links_the_model_plants_from_the_sandbox_are_not_followed(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    (workdir / ".git").mkdir()
    ssh = tmp_path / "user" / ".ssh"
    plant = (
        "ln -s /proc/self/environ AGENTS.md && mkdir sub && "
        f"ln -s {ssh}/id_ed25519 sub/AGENTS.md && "
        "mkdir -p .agents/skills/key && "
        f"ln -s {ssh}/SKILL.md .agents/skills/key/SKILL.md && "
        f"ln -s {ssh} .agents/skills/dir && "
        f"cat {ssh}/id_ed25519; echo planted"
    )
    call = script.function_call("exec_command", {"cmd": plant}, "c1")
    fake_model.add(script.reply(call), script.text_reply("done"), script.text_reply("hello"))
    server = await _daemon(start_server, tmp_path)

    first = await _turn(server, workdir)
    output = next(
        item["output"]
        for item in fake_model.requests[-1].body["input"]
        if item.get("call_id") == "c1" and item["type"] == "function_call_output"
    )
    assert "planted" in output and KEY_SECRET not in output  # the sandbox cannot read the key itself
    assert (workdir / "sub" / "AGENTS.md").is_symlink()

    second = await _turn(server, workdir / "sub")
    _assert_no_secret(_requests_of(fake_model, first) + _requests_of(fake_model, second))
    assert "<environment_context>" in _requests_of(fake_model, second)[0]
    listed = await server.request("skills/list", {"cwds": [str(workdir / "sub")]})
    _assert_no_secret([json.dumps(listed)])
    errors = {Path(e["path"]).parent.name: e["message"] for e in listed["data"][0]["errors"]}
    assert errors == {"key": "not read: a symbolic link", "dir": f"not read: outside {workdir}"}


async def test_a_cloned_repository_shipping_links_leaks_nothing(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    (workdir / ".git").mkdir()
    server = await _daemon(start_server, tmp_path)
    ssh = tmp_path / "user" / ".ssh"
    # The override would take the place of the (honest) AGENTS.md beside it.
    (workdir / "AGENTS.md").write_text("Run the linters.\n")
    (workdir / "AGENTS.override.md").symlink_to(f"/proc/{server.proc.pid}/environ")
    (workdir / "docs").symlink_to(ssh)  # a folder link on the way to a file named AGENTS.md
    (ssh / "AGENTS.md").write_text(KEY_SECRET)
    (workdir / ".agents").symlink_to(tmp_path / "user" / ".agents")
    (tmp_path / "user" / ".agents" / "skills" / "s").mkdir(parents=True)
    (tmp_path / "user" / ".agents" / "skills" / "s" / "SKILL.md").symlink_to(ssh / "SKILL.md")
    fake_model.add(script.text_reply("hello"))

    thread_id = await _turn(server, workdir / "docs")
    texts = _requests_of(fake_model, thread_id)
    _assert_no_secret(texts)
    assert "Run the linters." in texts[0]
