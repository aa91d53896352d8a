"""bwrap failure texts map to a reason and a fix the user can act on."""

from __future__ import annotations

import pytest

from tether_server.sandbox.messages import classify_bwrap_failure, refusal
from tether_server.sandbox.probe import is_confined


@pytest.mark.parametrize(
    ("stderr", "fix_fragment"),
    [
        (
            "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces "
            "exceeded (ENOSPC)",
            "user.max_user_namespaces",
        ),
        (
            "bwrap: No permissions to create new namespace, likely because the kernel does not allow "
            "non-privileged user namespaces.",
            "kernel.unprivileged_userns_clone=1",
        ),
        ("bwrap: setting up uid map: Permission denied", "apparmor_restrict_unprivileged_userns"),
        ("bwrap: setting up uid map: Operation not permitted", "outside the outer sandbox"),
        ("bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "systempaths=unconfined"),
    ],
)
def test_known_bwrap_failures_get_a_specific_fix(stderr: str, fix_fragment: str) -> None:
    assert fix_fragment in classify_bwrap_failure(stderr, 1).fix


def test_an_unknown_failure_quotes_the_last_stderr_line() -> None:
    diagnosis = classify_bwrap_failure("noise\nbwrap: something new\n", 1)
    assert "bwrap: something new" in diagnosis.reason


def test_the_refusal_text_says_the_command_did_not_run_and_how_to_fix() -> None:
    text = refusal("bwrap missing", "install it")
    assert "not run" in text
    assert text.endswith("To fix: install it")


def test_confinement_requires_no_caps_no_new_privs_and_a_filter() -> None:
    good = "CapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n"
    assert is_confined(good)
    assert not is_confined(good.replace("Seccomp:\t2", "Seccomp:\t0"))
    assert not is_confined(good.replace("CapEff:\t0000000000000000", "CapEff:\t000001fffeffffff"))
    assert not is_confined(good.replace("NoNewPrivs:\t1", "NoNewPrivs:\t0"))
