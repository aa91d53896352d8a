"""Resolving effective thread/turn settings: config < thread params < turn overrides."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tether_protocol import CODEX_PROTOCOL_VERSION
from tether_protocol.v2.thread_lifecycle import SessionOverrides
from tether_protocol.v2.turn import TurnStartParams
from tether_server.config import Config, with_overrides
from tether_server.core.ids import now_s, uuid7
from tether_server.core.settings import TurnSettings, sandbox_policy_for_mode
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
    mode = params.sandbox or cfg.sandbox_mode
    ww = cfg.sandbox_workspace_write
    policy = sandbox_policy_for_mode(
        str(wire(mode)),
        writable_roots=list(ww.writable_roots),
        network=ww.network_access,
        exclude_tmpdir=ww.exclude_tmpdir_env_var,
        exclude_slash_tmp=ww.exclude_slash_tmp,
    )
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
