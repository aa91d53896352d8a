"""Resolving effective thread/turn settings: config < thread params < turn overrides."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tether_protocol import CODEX_PROTOCOL_VERSION
from tether_protocol.v2.thread_extras import ThreadSettings
from tether_protocol.v2.thread_lifecycle import SessionOverrides
from tether_protocol.v2.turn import TurnStartParams
from tether_server.config import Config, with_overrides
from tether_server.core import plan_mode
from tether_server.core.ids import now_s, uuid7
from tether_server.core.settings import TurnSettings, sandbox_mode_of, sandbox_policy_for_mode
from tether_server.errors import InvalidRequest
from tether_server.store.base import ThreadRecord


def wire(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [wire(v) for v in value]
    return value


def _approval(value: Any) -> Any:
    value = wire(value)
    if isinstance(value, dict) and "granular" in value:
        return value
    return str(value)


def absolute_cwd(cwd: str | None, default: Path) -> str:
    if cwd is None:
        return str(default)
    path = Path(cwd)
    if not path.is_absolute():
        raise InvalidRequest(f"cwd must be an absolute path: {cwd}")
    return str(path)


def config_for(config: Config, overrides: dict[str, Any] | None) -> Config:
    return with_overrides(config, overrides) if overrides else config


def thread_settings(config: Config, params: SessionOverrides, default_cwd: Path) -> TurnSettings:
    """Settings of a new (or resumed) thread from config and the start/resume/fork params."""
    cfg = config_for(config, params.config)
    cwd = absolute_cwd(params.cwd, default_cwd)
    policy = _sandbox_policy(cfg, str(wire(params.sandbox or cfg.sandbox_mode)))
    provider = params.model_provider or cfg.model_provider
    if provider not in cfg.model_providers:
        raise InvalidRequest(
            f"unknown model provider `{provider}`; configure it under [model_providers.{provider}]"
        )
    return TurnSettings(
        cwd=cwd,
        model=params.model or cfg.model,
        model_provider=provider,
        approval_policy=_approval(params.approval_policy or cfg.approval_policy),
        approvals_reviewer=str(wire(params.approvals_reviewer or cfg.approvals_reviewer)),
        sandbox_policy=policy,
        effort=cfg.model_reasoning_effort,
        summary=cfg.model_reasoning_summary,
        base_instructions=params.base_instructions or cfg.instructions,
        developer_instructions=params.developer_instructions or cfg.developer_instructions,
        personality=wire(getattr(params, "personality", None)) or cfg.personality,
        service_tier=params.service_tier or cfg.service_tier,
    )


def _sandbox_policy(cfg: Config, mode: str) -> dict[str, Any]:
    ww = cfg.sandbox_workspace_write
    return sandbox_policy_for_mode(
        mode,
        writable_roots=list(ww.writable_roots),
        network=ww.network_access,
        exclude_tmpdir=ww.exclude_tmpdir_env_var,
        exclude_slash_tmp=ww.exclude_slash_tmp,
    )


_FIELD_OF_PARAM = {
    "model": "model",
    "model_provider": "model_provider",
    "service_tier": "service_tier",
    "cwd": "cwd",
    "approval_policy": "approval_policy",
    "approvals_reviewer": "approvals_reviewer",
    "sandbox": "sandbox_policy",
    "base_instructions": "base_instructions",
    "developer_instructions": "developer_instructions",
    "personality": "personality",
}
_FIELD_OF_CONFIG_KEY = {
    "model": "model",
    "model_provider": "model_provider",
    "service_tier": "service_tier",
    "approval_policy": "approval_policy",
    "approvals_reviewer": "approvals_reviewer",
    "sandbox_mode": "sandbox_policy",
    "sandbox_workspace_write": "sandbox_policy",
    "model_reasoning_effort": "effort",
    "model_reasoning_summary": "summary",
    "instructions": "base_instructions",
    "developer_instructions": "developer_instructions",
    "personality": "personality",
}


def overridden(params: SessionOverrides) -> set[str]:
    """The `TurnSettings` fields the params set, by a typed field or a `config` key."""
    fields = {field for name, field in _FIELD_OF_PARAM.items() if getattr(params, name, None) is not None}
    for key in params.config or {}:
        field = _FIELD_OF_CONFIG_KEY.get(key.split(".", 1)[0])
        if field is not None:
            fields.add(field)
    return fields


def stored_settings(record: ThreadRecord) -> TurnSettings:
    """The settings a stored thread's turns last ran with (its start settings if it had none)."""
    if record.settings:
        return TurnSettings.from_json(record.settings)
    return TurnSettings(cwd=record.cwd, model=record.model, model_provider=record.model_provider)


def resumed_settings(config: Config, stored: TurnSettings, params: SessionOverrides) -> TurnSettings:
    """A resumed thread's settings: the stored ones, with what the resume params set on top.

    A field the params leave alone keeps the thread's value, never the config's (Codex: a plain
    resume after a resume with overrides, or after turns with overrides, keeps them).
    """
    fresh = thread_settings(config, params, Path(stored.cwd))
    touched = overridden(params)
    if "sandbox_policy" in touched and params.sandbox is None and "sandbox_mode" not in (params.config or {}):
        # Only [sandbox_workspace_write] changed: the thread keeps its sandbox mode.
        cfg = config_for(config, params.config)
        fresh = replace(fresh, sandbox_policy=_sandbox_policy(cfg, sandbox_mode_of(stored.sandbox_policy)))
    return replace(stored, **{field: getattr(fresh, field) for field in touched})


def forked_settings(config: Config, source: TurnSettings, params: SessionOverrides) -> TurnSettings:
    """A fork's settings as Codex 0.169.0 makes them: the source's folder, approval policy and
    sandbox (as its last turn ran), the rest (model, effort, instructions, ...) from the config,
    and the fork's own params over both."""
    fresh = thread_settings(config, params, Path(source.cwd))
    touched = overridden(params)
    kept = ("cwd", "approval_policy", "sandbox_policy")
    return replace(fresh, **{field: getattr(source, field) for field in kept if field not in touched})


def turn_settings(current: TurnSettings, params: TurnStartParams) -> TurnSettings:
    """Apply `turn/start` overrides; they persist for later turns."""
    cwd = params.cwd
    if cwd is not None:
        cwd = absolute_cwd(cwd, Path(current.cwd))
    policy = wire(params.sandbox_policy)
    if isinstance(policy, dict):
        policy = {k: v for k, v in policy.items() if v is not None}
    return current.with_overrides(
        cwd=cwd,
        model=params.model,
        approval_policy=_approval(params.approval_policy) if params.approval_policy is not None else None,
        approvals_reviewer=wire(params.approvals_reviewer),
        sandbox_policy=policy,
        effort=params.effort,
        summary=wire(params.summary),
        personality=wire(params.personality),
        service_tier=params.service_tier,
    )


def default_cwd() -> Path:
    return Path(os.getcwd())


def new_thread_record(settings: TurnSettings, **fields: Any) -> ThreadRecord:
    """A fresh thread row (UUIDv7 id, timestamps now) for these settings; `fields` override."""
    now = now_s()
    values: dict[str, Any] = {
        "id": uuid7(),
        "created_at": now,
        "updated_at": now,
        "recency_at": now,
        "cwd": settings.cwd,
        "model": settings.model,
        "model_provider": settings.model_provider,
        "source": "vscode",
        "cli_version": CODEX_PROTOCOL_VERSION,
        "settings": settings.to_json(),
    }
    values.update(fields)
    return ThreadRecord(**values)


def permission_profile(settings: TurnSettings) -> dict[str, Any] | None:
    """The built-in profile Codex 0.169.0 names beside a read-only sandbox (none beside the others)."""
    return (
        {"id": ":read-only", "extends": None} if settings.sandbox_policy.get("type") == "readOnly" else None
    )


def collaboration_json(settings: TurnSettings) -> dict[str, Any]:
    """The thread's collaboration mode as Codex reports it: its model and effort are the thread's,
    and its instructions null until a mode was chosen (then the client's, or Tether's own)."""
    chosen = (
        settings.collaboration_mode != plan_mode.DEFAULT or settings.collaboration_instructions is not None
    )
    return {
        "mode": settings.collaboration_mode,
        "settings": {
            "model": settings.model,
            "reasoning_effort": settings.effort,
            "developer_instructions": plan_mode.instructions(settings) if chosen else None,
        },
    }


def settings_view(settings: TurnSettings) -> ThreadSettings:
    """What `thread/settings/updated` reports: the settings the thread's next turns run with."""
    return ThreadSettings.model_validate(
        {
            "cwd": settings.cwd,
            "environments": []
            if settings.no_environment
            else [{"environmentId": "local", "cwd": settings.cwd, "runtimeWorkspaceRoots": [settings.cwd]}],
            "approvalPolicy": settings.approval_policy,
            "approvalsReviewer": settings.approvals_reviewer,
            "sandboxPolicy": settings.sandbox_policy,
            "activePermissionProfile": permission_profile(settings),
            "model": settings.model,
            "modelProvider": settings.model_provider,
            "serviceTier": settings.service_tier,
            "effort": settings.effort,
            "summary": settings.summary,
            "collaborationMode": collaboration_json(settings),
            "multiAgentMode": "explicitRequestOnly",
            "personality": settings.personality,
            "disabledPluginIds": list(settings.disabled_plugin_ids),
        }
    )
