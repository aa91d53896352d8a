"""Shell startup files in a writable `$HOME`, and the next command an allow rule runs outside the
sandbox as a login shell (issue 24 item 13f). A real daemon over stdio, real bwrap, the fake
model; the workspace is `$HOME`; the markers lie outside every writable root."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartServer
from tests.integration.sandbox.test_sandbox_daemon_escapes_real import (
    WORKSPACE_WRITE,
    _exec,
    _output,
    _thread,
    _turn,
)

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_sandboxed_command_cannot_arm_the_startup_files_of_the_next_unsandboxed_login_shell(
    start_server: StartServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    user_home = tmp_path / "user"
    (user_home / "bin").mkdir(parents=True)
    (user_home / ".profile").write_text(
        'export PATH="$HOME/bin:$PATH"\n[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n'
    )
    # As Debian's default .bashrc does.
    (user_home / ".bashrc").write_text(
        "export FROM_BASHRC=yes\n[ -f ~/.bash_aliases ] && . ~/.bash_aliases\n"
    )
    markers = tmp_path / "markers"
    markers.mkdir()
    tether_home = tmp_path / "tether-home"
    (tether_home / "rules").mkdir(parents=True)
    (tether_home / "rules" / "team.rules").write_text('prefix_rule(pattern=["touch"], decision="allow")\n')
    arm = (
        f"echo 'touch {markers}/from-bashrc' >> ~/.bashrc; "
        f"echo 'touch {markers}/from-bash-profile' > ~/.bash_profile; "
        f"echo 'touch {markers}/from-zshenv' > ~/.zshenv; "
        f"echo 'touch {markers}/from-bash-aliases' > ~/.bash_aliases; "
        f"printf 'x' >> ~/.profile; "
        'echo "PATH=$PATH BASHRC=$FROM_BASHRC"'
    )
    fake_model.add(
        script.reply(_exec("arm", arm)),
        script.reply(_exec("allowed", "touch made-outside")),
        script.text_reply("ok"),
    )
    # The harness turns login shells off (the machine's profile is nobody's business); here they
    # are the point.
    server = await start_server(
        "-c", "allow_login_shell=true", home=tether_home, env={"HOME": str(user_home)}
    )
    await _turn(server, await _thread(server, user_home, approval="on-request"), WORKSPACE_WRITE)

    armed = _output(fake_model, "arm")
    assert f"PATH={user_home}/bin:" in armed and "BASHRC=yes" in armed, "the login shell still sets PATH"
    assert (user_home / "made-outside").exists(), "the allow rule ran the command outside the sandbox"
    assert sorted(p.name for p in markers.iterdir()) == [], "no startup file the command wrote ran"
    assert (user_home / ".bashrc").read_text().startswith("export FROM_BASHRC=yes\n")
    assert not (user_home / ".bash_profile").exists() and not (user_home / ".zshenv").exists()
    assert not (user_home / ".bash_aliases").exists()
