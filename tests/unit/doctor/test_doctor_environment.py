"""The python and dependencies checks, on real distribution metadata written to disk."""

from __future__ import annotations

import importlib.metadata as metadata
from pathlib import Path

from tether_server.doctor.environment import check_dependencies, check_python, satisfies


def _distribution(tmp_path: Path, *requires: str) -> metadata.Distribution:
    info = tmp_path / "probe-1.0.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", "Name: probe", "Version: 1.0"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    return metadata.Distribution.at(info)


def test_version_specifiers_are_compared_by_release_number() -> None:
    assert satisfies("2.14.4", "<3,>=2.7")
    assert not satisfies("3.0", "<3,>=2.7")
    assert satisfies("24.1.0", ">=24.1")
    assert not satisfies("0.19", ">=0.20")
    assert satisfies("1.0", "")


def test_an_old_python_fails_with_the_version_needed() -> None:
    check = check_python((3, 10, 4))

    assert (check.status, check.summary) == ("fail", "Python 3.10.4 is too old (3.11 or newer needed)")
    assert check_python().status == "ok"


def test_a_missing_library_and_a_too_old_one_fail_with_the_pip_command(tmp_path: Path) -> None:
    missing = check_dependencies(_distribution(tmp_path / "a", "structlog>=24.1", "no-such-library-xyz>=1"))
    old = check_dependencies(_distribution(tmp_path / "b", "pydantic>=99", 'pytest>=8; extra == "dev"'))

    assert missing.status == "fail"
    assert missing.summary == "no-such-library-xyz is not installed (no-such-library-xyz>=1 needed)"
    assert missing.fix == "pip install 'no-such-library-xyz>=1' (or reinstall Tether)"
    assert old.status == "fail"
    assert old.summary.endswith("is installed, pydantic>=99 is needed")


def test_installed_tether_meets_its_requirements() -> None:
    check = check_dependencies()

    assert check.status == "ok"
    assert "structlog" in check.details["installed"]
