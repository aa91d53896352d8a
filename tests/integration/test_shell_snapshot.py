"""The login shell's snapshot (`features.shell_snapshot`, issue 31): the user's profile runs once per
thread and commands source what it set up. A real daemon over stdio, real bash, real bwrap, the
fake model; `HOME` is a scratch user home whose `.bash_profile` logs each run to a side file.

Pinned from Codex 0.169.0: the item still shows `/bin/bash -lc '…'`; the profile runs once per
thread, whatever the number of commands; `login: false` skips the snapshot (no profile at all);
a profile that hangs leaves no snapshot and commands fall back to the login shell; the snapshot is
gone once the daemon exits; `thread/shellCommand` reads it too.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.conftest import StartServer
from tests.integration.sandbox.test_sandbox_daemon_escapes_real import _exec, _output, _thread, _turn
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

SHOW = 'echo "V=$SNAPVAR"; snapfn'
PROFILE = 'echo run >> "{runs}"\n{hang}export SNAPVAR=from-profile\nsnapfn() {{ echo "snapfn ran"; }}\n'


def _user_home(tmp_path: Path, workdir: Path, hang: str = "") -> Path:
    home = tmp_path / "user"
    home.mkdir()
    # In the workspace: a login shell in the sandbox can log its run too.
    (home / ".bash_profile").write_text(PROFILE.format(runs=workdir / "runs", hang=hang))
    return home


def _runs(workdir: Path) -> int:
    return len((workdir / "runs").read_text().splitlines()) if (workdir / "runs").exists() else 0


async def test_the_profile_runs_once_per_thread_and_commands_see_its_variables_and_functions(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    user = _user_home(tmp_path, workdir)
    tether_home = tmp_path / "tether-home"
    snapshots = tether_home / "shell_snapshots"
    snapshots.mkdir(parents=True)
    # A crashed daemon's (its pid is gone, above any pid_max): removed at start.
    (snapshots / "0199aaaa-dead-7000-8000-000000000000.999999999.bash.sh").write_text("export X=1\n")
    fake_model.add(
        script.reply(_exec("first", SHOW)),
        # In the sandbox the daemon's home, and so the snapshot, does not exist.
        script.reply(_exec("peek", f"{SHOW}; ls -A {snapshots} 2>&1; echo rc=$?")),
        script.reply(_exec("plain", 'echo "V=$SNAPVAR"', login=False)),
        script.text_reply("ok"),
    )
    server = await start_server("-c", "allow_login_shell=true", home=tether_home, env={"HOME": str(user)})
    mark = server.mark()
    thread_id = await _thread(server, workdir)
    assert (await _turn(server, thread_id))["status"] == "completed"
    # The user's own command (`thread/shellCommand`, unsandboxed) reads the snapshot too, as Codex's.
    user_mark = server.mark()
    await server.request("thread/shellCommand", {"threadId": thread_id, "command": SHOW})
    await server.notification("turn/completed", after=user_mark)
    [user_item] = [
        m["params"]["item"] for m in server.since(user_mark) if m.get("method") == "item/completed"
    ]
    assert user_item["aggregatedOutput"] == "V=from-profile\nsnapfn ran\n"

    assert "V=from-profile\nsnapfn ran" in _output(fake_model, "first")
    peek = _output(fake_model, "peek")
    assert "V=from-profile\nsnapfn ran" in peek and "rc=2" in peek, peek
    assert "V=\n" in _output(fake_model, "plain"), "login: false reads no profile, as Codex"
    assert _runs(workdir) == 1, "one profile run for the thread, none per command"
    [snapshot] = list(snapshots.iterdir())  # the stale one is gone
    assert snapshot.stat().st_mode & 0o777 == 0o600
    commands = [
        n["params"]["item"]["command"]
        for n in server.since(mark)
        if n.get("method") == "item/completed" and n["params"]["item"]["type"] == "commandExecution"
    ]
    assert commands[0] == f"/bin/bash -lc '{SHOW}'", "clients still see the login shell, as Codex shows it"
    await server.close()
    assert list(snapshots.iterdir()) == [], "unloading the thread removes its snapshot"


async def test_a_hung_profile_is_abandoned_at_the_bound_and_commands_fall_back_to_the_login_shell(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Only its first run (the snapshot's) hangs: the login shell after it shows the fallback. Both
    # run in the thread's sandbox, so the mark is left in the workspace.
    hang = f'[ -e "{workdir}/hung" ] || {{ touch "{workdir}/hung"; sleep 30; }}\n'
    user = _user_home(tmp_path, workdir, hang=hang)
    fake_model.add(script.reply(_exec("first", SHOW)), script.text_reply("ok"))
    tether_home = tmp_path / "tether-home"
    env = {"HOME": str(user), "TETHER_SHELL_SNAPSHOT_TIMEOUT_MS": "300"}
    server = await start_server("-c", "allow_login_shell=true", home=tether_home, env=env)
    thread_id = await _thread(server, workdir)
    began = time.monotonic()
    assert (await _turn(server, thread_id))["status"] == "completed"
    assert time.monotonic() - began < 10, "the command did not wait for the hung profile"
    assert "V=from-profile\nsnapfn ran" in _output(fake_model, "first"), "the login shell ran it"
    assert _runs(workdir) == 2, "the abandoned snapshot, then the login shell"
    assert list((tether_home / "shell_snapshots").iterdir()) == []


async def test_with_the_feature_off_each_command_runs_a_login_shell(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    user = _user_home(tmp_path, workdir)
    fake_model.add(script.reply(_exec("a", SHOW)), script.reply(_exec("b", SHOW)), script.text_reply("ok"))
    args = ("-c", "allow_login_shell=true", "-c", "features.shell_snapshot=false")
    server = await start_server(*args, home=tmp_path / "tether-home", env={"HOME": str(user)})
    assert (await _turn(server, await _thread(server, workdir)))["status"] == "completed"
    assert "V=from-profile\nsnapfn ran" in _output(fake_model, "b")
    assert _runs(workdir) == 2
    assert not (tmp_path / "tether-home" / "shell_snapshots").exists()


async def test_the_profile_runs_in_the_threads_sandbox_so_workspace_files_it_reads_stay_contained(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # A profile that sources a file from the folder it starts in (a `.env`, a prompt helper's
    # `git` on the repository): the model wrote that file in an earlier turn.
    user = tmp_path / "user"
    user.mkdir()
    (user / ".bash_profile").write_text(
        "[ -f ./.profile-hook ] && . ./.profile-hook\nexport SNAPVAR=from-profile\n"
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    (workdir / ".profile-hook").write_text(f'touch "{outside}/escaped"\n')
    fake_model.add(script.reply(_exec("show", 'echo "V=$SNAPVAR"')), script.text_reply("ok"))
    server = await start_server(
        "-c", "allow_login_shell=true", home=tmp_path / "tether-home", env={"HOME": str(user)}
    )
    thread_id = await _thread(server, workdir)
    assert (await _turn(server, thread_id, {"type": "readOnly"}))["status"] == "completed"
    assert "V=from-profile" in _output(fake_model, "show")
    assert list((tmp_path / "tether-home" / "shell_snapshots").iterdir()), "the snapshot was taken"
    assert not (outside / "escaped").exists(), "the profile ran outside the thread's sandbox"


async def test_a_thread_that_runs_no_command_never_runs_the_profile(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Unlike Codex (at thread start), the snapshot waits for a login-shell command: a chat-only
    # thread costs no profile. The first thread's turn starts before the second's, so a snapshot
    # taken at a turn's start would have logged its run by the time the second thread's command,
    # which waits for its own, has run.
    user = _user_home(tmp_path, workdir)
    fake_model.add(
        script.text_reply("just words"), script.reply(_exec("first", SHOW)), script.text_reply("ok")
    )
    server = await start_server(
        "-c", "allow_login_shell=true", home=tmp_path / "tether-home", env={"HOME": str(user)}
    )
    assert (await _turn(server, await _thread(server, workdir)))["status"] == "completed"
    assert (await _turn(server, await _thread(server, workdir)))["status"] == "completed"
    assert "V=from-profile\nsnapfn ran" in _output(fake_model, "first")
    assert _runs(workdir) == 1, "only the thread that ran a command ran the profile"
