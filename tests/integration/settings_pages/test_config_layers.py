"""config/read with its layers and `cwd`, as Codex 0.169.0 answers it.

Observed on the real binary (a user config.toml trusting a git project that has `.codex/config.toml`,
`-c` flags): with `includeLayers` the layers come highest precedence first — `{"type":
"sessionFlags"}` (the flags' table), `{"type": "project", "dotCodexFolder": "<project>/.codex"}`
when `cwd` is in the trusted project, `{"type": "user", "file", "profile": null}`, then `{"type":
"system", "file": "/etc/codex/config.toml"}` listed with `{}` even when the file does not exist —
each with `version` and `config` (the layer's table as written). With `cwd` a project key wins
over the user's (its origin names the project layer), a flag still wins over both; a relative or
missing `cwd` reads as no `cwd`; without `includeLayers` `layers` is null. Tether's system folder is
`$TETHER_SYSTEM_CONFIG_DIR` (default /etc/tether). Difference: Codex shows tokens and headers as
written; Tether passes every layer through its one secret filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp

TOKEN = "sk-secret-in-user-config"


def _setup(tmp_path: Path, workdir: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        'approval_policy = "on-request"\n'
        'model_reasoning_effort = "low"\n'
        "[model_providers.gw]\n"
        'name = "Gateway"\n'
        'base_url = "http://127.0.0.1:9/v1"\n'
        f'experimental_bearer_token = "{TOKEN}"\n'
        f'[projects."{workdir}"]\n'
        'trust_level = "trusted"\n'
    )
    (workdir / ".git").mkdir()
    (workdir / ".codex").mkdir()
    (workdir / ".codex" / "config.toml").write_text(
        'approval_policy = "never"\n'
        'sandbox_mode = "danger-full-access"\n'
        "[model_providers.gw]\n"
        'http_headers = { Authorization = "Bearer project-secret" }\n'
    )
    (workdir / "sub").mkdir()
    system = tmp_path / "system"
    system.mkdir()
    (system / "config.toml").write_text('model_verbosity = "low"\n')
    return home, system


def _names(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [layer["name"] for layer in answer["layers"]]


async def test_layers_from_a_trusted_project_folder(
    start_app: StartApp, tmp_path: Path, workdir: Path
) -> None:
    home, system = _setup(tmp_path, workdir)
    server = await start_app(
        "-c", 'sandbox_mode="read-only"', home=home, env={"TETHER_SYSTEM_CONFIG_DIR": str(system)}
    )

    plain = await server.request("config/read", {})
    layered = await server.request("config/read", {"includeLayers": True, "cwd": str(workdir / "sub")})
    relative = await server.request("config/read", {"includeLayers": True, "cwd": "sub"})

    assert plain["layers"] is None
    assert plain["config"]["approval_policy"] == "on-request"
    assert plain["origins"]["approval_policy"]["name"]["type"] == "user"
    project = {"type": "project", "dotCodexFolder": str(workdir / ".codex")}
    user = {"type": "user", "file": str(home / "config.toml"), "profile": None}
    system_name = {"type": "system", "file": str(system / "config.toml")}
    assert _names(layered) == [{"type": "sessionFlags"}, project, user, system_name]
    assert _names(relative) == [{"type": "sessionFlags"}, user, system_name]
    flags, project_layer, user_layer, system_layer = layered["layers"]
    assert flags["config"]["sandbox_mode"] == "read-only"
    assert project_layer["config"] == {
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",
        "model_providers": {"gw": {"http_headers": {"Authorization": "<redacted>"}}},
    }
    assert user_layer["config"]["model_providers"]["gw"]["experimental_bearer_token"] == "<redacted>"
    assert system_layer["config"] == {"model_verbosity": "low"}
    assert all(layer["version"].startswith("sha256:") for layer in layered["layers"])
    assert TOKEN not in str(layered) and "project-secret" not in str(layered)
    # The project wins over the user; the flag still wins over the project.
    assert layered["config"]["approval_policy"] == "never"
    assert layered["origins"]["approval_policy"] == {"name": project, "version": project_layer["version"]}
    assert layered["config"]["sandbox_mode"] == "read-only"
    assert layered["origins"]["sandbox_mode"]["name"] == {"type": "sessionFlags"}
    assert relative["config"]["approval_policy"] == "on-request"


async def test_an_untrusted_project_adds_no_layer(start_app: StartApp, tmp_path: Path, workdir: Path) -> None:
    home, _system = _setup(tmp_path, workdir)
    config = (
        (home / "config.toml").read_text().replace('trust_level = "trusted"', 'trust_level = "untrusted"')
    )
    (home / "config.toml").write_text(config)
    server = await start_app(home=home, env={"TETHER_SYSTEM_CONFIG_DIR": str(tmp_path / "none")})

    answer = await server.request("config/read", {"includeLayers": True, "cwd": str(workdir)})

    assert [name["type"] for name in _names(answer)] == ["sessionFlags", "user", "system"]
    assert answer["layers"][-1] == {
        "name": {"type": "system", "file": str(tmp_path / "none" / "config.toml")},
        "version": answer["layers"][-1]["version"],
        "config": {},
        "disabledReason": None,
    }
    assert answer["config"]["approval_policy"] == "on-request"
