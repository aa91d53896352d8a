"""Which host paths the daemon hides from every sandboxed command, and how nesting folds."""

from __future__ import annotations

from pathlib import Path

from tether_server.sandbox.hidden import CREDENTIAL_NAMES, host_hidden_paths, outermost


def test_runtime_dirs_socket_dirs_and_home_credentials_are_hidden(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_RUNTIME_DIR": str(tmp_path / "xdg"),
        "SSH_AUTH_SOCK": str(tmp_path / "agent" / "ssh.sock"),
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path / 'bus' / 'socket'},guid=1",
        "DOCKER_HOST": f"unix://{tmp_path / 'docker' / 'docker.sock'}",
    }
    paths = set(host_hidden_paths(env))
    expected = {Path("/run"), Path("/var/run"), Path("/tmp/.X11-unix"), tmp_path / "xdg", tmp_path / "agent"}
    expected.add(tmp_path / "bus")
    expected |= {tmp_path / "docker"} | {tmp_path / "home" / name for name in CREDENTIAL_NAMES}
    assert expected <= paths


def test_a_socket_directly_in_a_shared_dir_hides_only_the_socket(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "SSH_AUTH_SOCK": "/tmp/agent.sock",
        "DOCKER_HOST": f"unix://{tmp_path}/d.sock",
    }
    paths = host_hidden_paths(env)
    assert Path("/tmp/agent.sock") in paths and Path("/tmp") not in paths
    assert tmp_path / "d.sock" in paths and tmp_path not in paths


def test_configured_credentials_stay_readable_and_tcp_or_relative_values_are_ignored(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "DOCKER_HOST": "tcp://127.0.0.1:2375", "XDG_RUNTIME_DIR": "relative"}
    paths = host_hidden_paths(env, readable_credentials=[".ssh", ".netrc"])
    assert tmp_path / ".ssh" not in paths and tmp_path / ".netrc" not in paths
    assert tmp_path / ".aws" in paths
    assert Path("relative") not in paths and all(p.is_absolute() for p in paths)


def test_outermost_drops_nested_paths_and_resolves_symlinks(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    real = tmp_path.resolve()
    assert outermost([tmp_path / "link" / "b", tmp_path / "a", tmp_path / "c"]) == [real / "a", real / "c"]
