"""The kernel settings doctor names when user namespaces are off, read from a /proc-shaped tree."""

from __future__ import annotations

from pathlib import Path

from tether_server.doctor.sandbox import userns_blockers


def _proc(root: Path, values: dict[str, str]) -> Path:
    for relative, value in values.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
    return root


def test_each_switch_that_turns_user_namespaces_off_is_named(tmp_path: Path) -> None:
    root = _proc(
        tmp_path,
        {
            "proc/sys/user/max_user_namespaces": "0",
            "proc/sys/kernel/unprivileged_userns_clone": "0",
            "proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
        },
    )

    assert userns_blockers(root) == [
        "user.max_user_namespaces = 0",
        "kernel.unprivileged_userns_clone = 0",
        "kernel.apparmor_restrict_unprivileged_userns = 1",
    ]


def test_settings_that_allow_user_namespaces_or_are_absent_name_nothing(tmp_path: Path) -> None:
    root = _proc(tmp_path, {"proc/sys/user/max_user_namespaces": "15000"})

    assert userns_blockers(root) == []
