"""The experimental `turn/start` fields Codex 0.169.0 applies: `collaborationMode`, `permissions`,
`environments` and `additionalContext`.

A collaboration mode, a permissions profile and an environment's folder persist for later turns,
as the other overrides do; the additional context goes to the model once, with this input.
Anything that cannot be applied is refused with the error Codex gives, and nothing changes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tether_protocol.v2.turn import TurnStartParams
from tether_server.config import Config
from tether_server.core.settings import AdditionalContext, TurnSettings, sandbox_policy_for_mode
from tether_server.errors import InvalidRequest
from tether_server.processor.settings import absolute_cwd

LOCAL = "local"
"""The one environment Tether has: this machine."""

_PROFILES = {
    ":read-only": "read-only",
    ":workspace": "workspace-write",
    ":danger-full-access": "danger-full-access",
}
"""Codex's built-in permissions profiles and the sandbox mode each stands for."""


def apply(config: Config, settings: TurnSettings, params: TurnStartParams) -> TurnSettings:
    """`settings` (the other overrides already applied) with the experimental fields on top."""
    settings = replace(settings, additional_context=_context(params))
    mode = params.collaboration_mode
    if mode is not None:
        # The mode's settings take precedence over the turn's model and effort: a mode without an
        # effort leaves none (Codex 0.169.0 then reports `effort: null`).
        settings = replace(
            settings,
            collaboration_mode=mode.mode,
            collaboration_instructions=mode.settings.developer_instructions,
            model=mode.settings.model,
            effort=mode.settings.reasoning_effort,
        )
    if params.permissions is not None:
        if params.sandbox_policy is not None:
            raise InvalidRequest("`permissions` cannot be combined with `sandboxPolicy`")
        settings = replace(settings, sandbox_policy=_profile_policy(config, params.permissions))
    if params.disabled_plugin_ids is not None:
        settings = replace(settings, disabled_plugin_ids=tuple(params.disabled_plugin_ids))
    if params.environments == []:
        # As Codex 0.169.0: the turn runs with no environment (no folder, no tools that need one).
        settings = replace(settings, no_environment=True)
    elif params.environments is not None:
        settings = replace(settings, cwd=_environment_cwd(params, Path(settings.cwd)), no_environment=False)
    return settings


def _context(params: TurnStartParams) -> tuple[AdditionalContext, ...]:
    entries = params.additional_context or {}
    return tuple(AdditionalContext(key, e.kind, e.value, e.name) for key, e in entries.items())


def _profile_policy(config: Config, profile: str) -> dict[str, Any]:
    mode = _PROFILES.get(profile)
    if mode is None:
        unknown = f"default_permissions refers to unknown built-in profile `{profile}`"
        raise InvalidRequest(f"failed to load configuration: {unknown}")
    ww = config.sandbox_workspace_write
    return sandbox_policy_for_mode(
        mode,
        writable_roots=list(ww.writable_roots),
        network=ww.network_access,
        exclude_tmpdir=ww.exclude_tmpdir_env_var,
        exclude_slash_tmp=ww.exclude_slash_tmp,
    )


def _environment_cwd(params: TurnStartParams, current: Path) -> str:
    environments = params.environments or []
    for env in environments:
        if env.environment_id != LOCAL:
            raise InvalidRequest(f"unknown turn environment id `{env.environment_id}`")
    return absolute_cwd(environments[0].cwd, current)
