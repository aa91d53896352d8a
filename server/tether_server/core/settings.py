"""Per-thread settings that turns run with; per-turn overrides persist (Codex semantics)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class AdditionalContext:
    """One fragment of `turn/start`'s `additionalContext`: `untrusted` (e.g. a web page) or
    `application` (the client's own), under the client's key."""

    key: str
    kind: str
    value: str
    name: str | None = None


@dataclass(frozen=True)
class TurnSettings:
    cwd: str
    model: str
    model_provider: str
    approval_policy: Any = "on-request"  # "untrusted" | "on-request" | "never" | {"granular": {...}}
    approvals_reviewer: str = "user"
    sandbox_policy: dict[str, Any] = field(
        default_factory=lambda: {"type": "readOnly", "networkAccess": False}
    )
    effort: str | None = None
    summary: str | None = None
    base_instructions: str | None = None
    developer_instructions: str | None = None
    personality: str | None = None
    service_tier: str | None = None
    collaboration_mode: str = "default"  # "default" | "plan"
    collaboration_instructions: str | None = None
    """The client's instructions for the mode; None: Tether's own for it."""
    additional_context: tuple[AdditionalContext, ...] = ()
    """Context the client gave with the latest `turn/start`: told the model once, with that input,
    then dropped (not saved with the thread's settings)."""
    no_environment: bool = False
    disabled_plugin_ids: tuple[str, ...] = ()
    """`turn/start`'s `disabledPluginIds`, kept with the thread and reported back; as in Codex
    0.169.0 it does not yet filter what plugins contribute."""
    """`turn/start` chose no environment (`environments: []`): no folder in the model's context and
    no command, patch or image tool runs, as in Codex 0.169.0, until a turn selects `local` again."""

    def with_overrides(self, **changes: Any) -> TurnSettings:
        """Apply the non-None overrides."""
        real = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **real) if real else self

    def to_json(self) -> dict[str, Any]:
        return {
            "cwd": self.cwd,
            "model": self.model,
            "modelProvider": self.model_provider,
            "approvalPolicy": self.approval_policy,
            "approvalsReviewer": self.approvals_reviewer,
            "sandboxPolicy": self.sandbox_policy,
            "effort": self.effort,
            "summary": self.summary,
            "baseInstructions": self.base_instructions,
            "developerInstructions": self.developer_instructions,
            "personality": self.personality,
            "serviceTier": self.service_tier,
            "collaborationMode": self.collaboration_mode,
            "collaborationInstructions": self.collaboration_instructions,
            "noEnvironment": self.no_environment,
            "disabledPluginIds": list(self.disabled_plugin_ids),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnSettings:
        return cls(
            cwd=data["cwd"],
            model=data["model"],
            model_provider=data["modelProvider"],
            approval_policy=data.get("approvalPolicy", "on-request"),
            approvals_reviewer=data.get("approvalsReviewer", "user"),
            sandbox_policy=data.get("sandboxPolicy") or {"type": "readOnly", "networkAccess": False},
            effort=data.get("effort"),
            summary=data.get("summary"),
            base_instructions=data.get("baseInstructions"),
            developer_instructions=data.get("developerInstructions"),
            personality=data.get("personality"),
            service_tier=data.get("serviceTier"),
            collaboration_mode=data.get("collaborationMode") or "default",
            collaboration_instructions=data.get("collaborationInstructions"),
            no_environment=bool(data.get("noEnvironment")),
            disabled_plugin_ids=tuple(str(p) for p in data.get("disabledPluginIds") or ()),
        )


def sandbox_mode_of(policy: dict[str, Any]) -> str:
    return {
        "dangerFullAccess": "danger-full-access",
        "workspaceWrite": "workspace-write",
        "readOnly": "read-only",
        "externalSandbox": "external-sandbox",
    }.get(str(policy.get("type")), "read-only")


def sandbox_policy_for_mode(
    mode: str,
    *,
    writable_roots: list[str] | None = None,
    network: bool = False,
    exclude_tmpdir: bool = False,
    exclude_slash_tmp: bool = False,
) -> dict[str, Any]:
    if mode == "danger-full-access":
        return {"type": "dangerFullAccess"}
    if mode == "workspace-write":
        return {
            "type": "workspaceWrite",
            "writableRoots": list(writable_roots or []),
            "networkAccess": network,
            "excludeTmpdirEnvVar": exclude_tmpdir,
            "excludeSlashTmp": exclude_slash_tmp,
        }
    return {"type": "readOnly", "networkAccess": False}
