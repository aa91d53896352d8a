"""Server→client requests for approval and user input, and the client's answers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer
from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel
from tether_protocol.v2.item_parts import CommandAction

CommandExecutionApprovalKind = Literal["command", "humanCommand", "writeStdin"]


class NetworkApprovalContext(WireModel):
    """The network access a command asks for."""

    host: str
    protocol: Literal["http", "https", "socks5Tcp", "socks5Udp"]


class NetworkPolicyAmendment(WireModel):
    """A rule to allow or deny a host from now on."""

    host: str
    action: Literal["allow", "deny"]


class ExecPolicyAmendmentBody(WireModel):
    """Inside of `acceptWithExecpolicyAmendment` (snake_case key)."""

    execpolicy_amendment: list[str] = Field(alias="execpolicy_amendment")


class AcceptWithExecpolicyAmendment(WireModel):
    """Approve and allow this argv prefix from now on."""

    accept_with_execpolicy_amendment: ExecPolicyAmendmentBody


class NetworkPolicyAmendmentBody(WireModel):
    """Inside of `applyNetworkPolicyAmendment` (snake_case key)."""

    network_policy_amendment: NetworkPolicyAmendment = Field(alias="network_policy_amendment")


class ApplyNetworkPolicyAmendment(WireModel):
    """Approve and record a network rule."""

    apply_network_policy_amendment: NetworkPolicyAmendmentBody


SimpleApprovalDecision = Literal["accept", "acceptForSession", "decline", "cancel"]

CommandExecutionApprovalDecision = TypeAliasType(
    "CommandExecutionApprovalDecision",
    SimpleApprovalDecision | AcceptWithExecpolicyAmendment | ApplyNetworkPolicyAmendment,
)


OMITTED_WHEN_NULL: frozenset[str] = frozenset(
    {
        "approval_id",
        "approvalId",
        "network_approval_context",
        "networkApprovalContext",
        "proposed_network_policy_amendments",
        "proposedNetworkPolicyAmendments",
        # account/login/start's answer: each sign-in kind sends only its own keys.
        "authUrl",
        "loginId",
        "userCode",
        "verificationUrl",
    }
)


class CommandExecutionRequestApprovalParams(WireModel):
    """`item/commandExecution/requestApproval` params.

    Codex leaves `approvalId` and the network fields out (rather than null) when unset; so do we.
    """

    kind: CommandExecutionApprovalKind = "command"
    thread_id: str
    turn_id: str
    item_id: str
    started_at_ms: int
    approval_id: str | None = None
    environment_id: str | None = None
    command: str | None = None
    cwd: str | None = None
    command_actions: list[CommandAction] | None = None
    reason: str | None = None
    network_approval_context: NetworkApprovalContext | None = None
    proposed_execpolicy_amendment: list[str] | None = None
    proposed_network_policy_amendments: list[NetworkPolicyAmendment] | None = None
    available_decisions: list[CommandExecutionApprovalDecision] | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_optionals(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k not in OMITTED_WHEN_NULL}


class CommandExecutionRequestApprovalResponse(WireModel):
    """The client's answer to a command approval."""

    decision: CommandExecutionApprovalDecision


class FileChangeRequestApprovalParams(WireModel):
    """`item/fileChange/requestApproval` params; the changes are in the preceding `item/started`."""

    thread_id: str
    turn_id: str
    item_id: str
    started_at_ms: int
    reason: str | None = None
    grant_root: str | None = None


FileChangeApprovalDecision = SimpleApprovalDecision


class FileChangeRequestApprovalResponse(WireModel):
    """The client's answer to a patch approval."""

    decision: FileChangeApprovalDecision


class ToolRequestUserInputOption(WireModel):
    """A suggested answer."""

    label: str
    description: str


class ToolRequestUserInputQuestion(WireModel):
    """One question for the user."""

    id: str
    header: str
    question: str
    is_other: bool = False
    is_secret: bool = False
    options: list[ToolRequestUserInputOption] | None = None


class ToolRequestUserInputParams(WireModel):
    """`item/tool/requestUserInput` params (plan mode)."""

    thread_id: str
    turn_id: str
    item_id: str
    questions: list[ToolRequestUserInputQuestion]
    is_blocking: bool = True
    auto_resolution_ms: int | None = None


class ToolRequestUserInputAnswer(WireModel):
    """The chosen or typed answers to one question."""

    answers: list[str]


class ToolRequestUserInputResponse(WireModel):
    """The client's answers, keyed by question id."""

    answers: dict[str, ToolRequestUserInputAnswer]
