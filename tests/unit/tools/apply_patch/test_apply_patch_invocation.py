"""Shell calls that are really apply_patch are recognised; other commands are left alone."""

from __future__ import annotations

import pytest

from tether_server.tools.apply_patch import (
    PatchInvocation,
    extract_patch_from_command,
    is_bare_patch,
    parse_invocation,
    parse_patch,
)

PATCH = "*** Begin Patch\n*** Add File: x.txt\n+hi\n*** End Patch"


@pytest.mark.parametrize("name", ["apply_patch", "applypatch"])
def test_direct_argv_invocation(name: str) -> None:
    assert extract_patch_from_command([name, PATCH]) == PATCH


@pytest.mark.parametrize("quote", ["'", '"', ""])
@pytest.mark.parametrize("shell", ["bash", "/bin/zsh", "sh", "BASH.exe"])
def test_heredoc_in_shell_script(shell: str, quote: str) -> None:
    script = f"apply_patch <<{quote}EOF{quote}\n{PATCH}\nEOF\n"
    extracted = extract_patch_from_command([shell, "-lc", script])
    assert extracted is not None
    assert parse_patch(extracted) == parse_patch(PATCH)


def test_cd_prefix_gives_the_working_directory() -> None:
    script = f"cd sub/dir && apply_patch <<'PATCH'\n{PATCH}\nPATCH"
    assert parse_invocation(["bash", "-c", script]) == PatchInvocation(PATCH, "sub/dir")


def test_quoted_cd_directory_is_unquoted() -> None:
    script = f"cd 'my dir' && applypatch <<'EOF'\n{PATCH}\nEOF"
    invocation = parse_invocation(["bash", "-lc", script])
    assert invocation is not None
    assert invocation.workdir == "my dir"


@pytest.mark.parametrize(
    "argv",
    [
        ["ls", "-la"],
        ["apply_patch"],
        ["bash", "-lc", "echo hi"],
        ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEOF\necho done"],
        ["bash", "-lc", f"rm -rf x && apply_patch <<'EOF'\n{PATCH}\nEOF"],
        ["python", "-c", f"apply_patch <<'EOF'\n{PATCH}\nEOF"],
    ],
)
def test_other_commands_are_not_patches(argv: list[str]) -> None:
    assert extract_patch_from_command(argv) is None


def test_bare_patch_without_apply_patch_is_detected() -> None:
    assert is_bare_patch([PATCH])
    assert is_bare_patch(["bash", "-lc", PATCH])
    assert not is_bare_patch(["bash", "-lc", "echo hi"])
    assert not is_bare_patch(["apply_patch", PATCH])
