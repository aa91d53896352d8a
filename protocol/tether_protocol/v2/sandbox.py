"""Sandbox and approval settings: `SandboxMode`, `SandboxPolicy`, `AskForApproval`, `ApprovalsReviewer`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel

SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
"""Thread-level sandbox choice (kebab-case on the wire)."""

NetworkAccess = Literal["restricted", "enabled"]
ApprovalsReviewer = Literal["user", "auto_review", "guardian_subagent"]


class DangerFullAccessPolicy(WireModel):
    """No sandbox at all."""

    type: Literal["dangerFullAccess"] = "dangerFullAccess"


class ReadOnlyPolicy(WireModel):
    """Read anywhere, write nowhere."""

    type: Literal["readOnly"] = "readOnly"
    network_access: bool = False


class WorkspaceWritePolicy(WireModel):
    """Write inside the workspace (cwd plus `writableRoots`)."""

    type: Literal["workspaceWrite"] = "workspaceWrite"
    writable_roots: list[str] = Field(default_factory=list)
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


class ExternalSandboxPolicy(WireModel):
    """The caller already sandboxes the process."""

    type: Literal["externalSandbox"] = "externalSandbox"
    network_access: NetworkAccess = "restricted"


SandboxPolicy = TypeAliasType(
    "SandboxPolicy",
    Annotated[
        DangerFullAccessPolicy | ReadOnlyPolicy | WorkspaceWritePolicy | ExternalSandboxPolicy,
        Field(discriminator="type"),
    ],
)


class GranularApprovalSettings(WireModel):
    """Inside of `{"granular": {...}}`; snake_case keys on the wire."""

    sandbox_approval: bool = Field(alias="sandbox_approval")
    rules: bool
    mcp_elicitations: bool = Field(alias="mcp_elicitations")
    skill_approval: bool = Field(default=False, alias="skill_approval")
    request_permissions: bool = Field(default=False, alias="request_permissions")


class GranularApproval(WireModel):
    """Experimental per-category approval policy."""

    granular: GranularApprovalSettings


ApprovalPolicyName = Literal["untrusted", "on-request", "never"]

AskForApproval = TypeAliasType("AskForApproval", ApprovalPolicyName | GranularApproval)
