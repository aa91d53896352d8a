"""One secret filter: spawned commands never see credential-like variables nor the provider key, and
`config/read` redacts by the same names.

The attack: a prompt-injected command prints its environment (or sends it out) to steal the model
provider's key or other credentials the daemon was started with.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartServer

PROVIDER_KEY = "TETHER_TEST_PROVIDER_KEY"
SECRETS = {
    PROVIDER_KEY: "sk-provider-secret",
    "DEPLOY_PASSWORD": "hunter2",
    "GH_AUTH_HEADER": "Bearer abc",
    "CLOUD_CREDENTIALS_JSON": "{}",
    "STRIPE_SECRET": "whsec",
    "npm_token": "npm-abc",
}
PLAIN = {"TETHER_TEST_PLAIN": "visible"}
PROVIDER_ARGS = ("-c", f'model_providers.mock.env_key="{PROVIDER_KEY}"')
READ_ONLY = {"type": "readOnly"}


async def _env_of_a_sandboxed_command(start_server: StartServer, workdir: Path, *args: str) -> set[str]:
    server = await start_server(*PROVIDER_ARGS, *args, env={**SECRETS, **PLAIN}, cwd=workdir)
    result = await server.request(
        "command/exec", {"command": ["env"], "cwd": str(workdir), "sandboxPolicy": READ_ONLY}
    )
    assert result["exitCode"] == 0, result
    return {line.partition("=")[0] for line in result["stdout"].splitlines()}


async def test_a_sandboxed_command_sees_no_credentials(start_server: StartServer, workdir: Path) -> None:
    names = await _env_of_a_sandboxed_command(start_server, workdir)

    assert "TETHER_TEST_PLAIN" in names
    assert not names & set(SECRETS), names & set(SECRETS)


async def test_the_provider_key_is_removed_even_with_ignore_default_excludes(
    start_server: StartServer, workdir: Path
) -> None:
    names = await _env_of_a_sandboxed_command(
        start_server, workdir, "-c", "shell_environment_policy.ignore_default_excludes=true"
    )

    assert "DEPLOY_PASSWORD" in names  # the user opted out of the default filter…
    assert PROVIDER_KEY not in names  # …but never out of hiding the model's key


async def test_config_read_redacts_by_the_same_names(start_server: StartServer) -> None:
    values = {
        "DB_PASSWORD": "hunter2",
        "AWS_CREDENTIAL_FILE": "/secret/file",
        "X_AUTH": "abc",
        "EDITOR": "vi",
    }
    args = [
        a for name, value in values.items() for a in ("-c", f'shell_environment_policy.set.{name}="{value}"')
    ]
    server = await start_server(*args)

    result = await server.request("config/read", {})

    assert result["config"]["shell_environment_policy"]["set"] == {
        "DB_PASSWORD": "<redacted>",
        "AWS_CREDENTIAL_FILE": "<redacted>",
        "X_AUTH": "<redacted>",
        "EDITOR": "vi",
    }
