"""Inputs are as lenient as Codex's and as strict where Codex is strict."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from tether_protocol.v2 import approvals as ap
from tether_protocol.v2 import inputs as inp
from tether_protocol.v2 import items as it
from tether_protocol.v2 import sandbox as sb
from tether_protocol.v2 import thread_lifecycle as tl
from tether_protocol.v2 import turn as tu

_ASK = TypeAdapter(sb.AskForApproval)
_POLICY = TypeAdapter(sb.SandboxPolicy)
_ERROR_INFO = TypeAdapter(tu.CodexErrorInfo)
_ITEM = TypeAdapter(it.ThreadItem)
_DECISION = TypeAdapter(ap.CommandExecutionApprovalDecision)


def test_text_input_without_text_elements_is_accepted() -> None:
    params = tu.TurnStartParams.model_validate({"threadId": "t", "input": [{"type": "text", "text": "hi"}]})
    assert params.input == [inp.TextInput(text="hi")]


def test_input_union_dispatches_on_type() -> None:
    params = tu.TurnStartParams.model_validate(
        {
            "threadId": "t",
            "input": [{"type": "localImage", "path": "/a.png"}, {"type": "image", "fileId": "f"}],
        }
    )
    assert isinstance(params.input[0], inp.LocalImageInput)
    assert isinstance(params.input[1], inp.ImageInput) and params.input[1].file_id == "f"


def test_unknown_input_type_is_rejected() -> None:
    with pytest.raises(ValidationError):
        tu.TurnStartParams.model_validate({"threadId": "t", "input": [{"type": "video", "url": "x"}]})


@pytest.mark.parametrize("value", ["untrusted", "on-request", "never"])
def test_named_approval_policies_parse(value: str) -> None:
    assert _ASK.validate_python(value) == value


def test_on_failure_approval_policy_is_rejected_like_codex() -> None:
    with pytest.raises(ValidationError):
        _ASK.validate_python("on-failure")


def test_granular_approval_policy_defaults_its_optional_flags() -> None:
    policy = _ASK.validate_python(
        {"granular": {"sandbox_approval": True, "rules": True, "mcp_elicitations": False}}
    )
    assert isinstance(policy, sb.GranularApproval)
    assert policy.granular.skill_approval is False and policy.granular.request_permissions is False


def test_sandbox_policy_fills_codex_defaults() -> None:
    policy = _POLICY.validate_python({"type": "workspaceWrite"})
    assert policy.wire() == {
        "type": "workspaceWrite",
        "writableRoots": [],
        "networkAccess": False,
        "excludeTmpdirEnvVar": False,
        "excludeSlashTmp": False,
    }
    assert _POLICY.validate_python({"type": "externalSandbox"}).wire() == {
        "type": "externalSandbox",
        "networkAccess": "restricted",
    }


def test_sandbox_mode_is_kebab_case() -> None:
    assert tl.ThreadStartParams.model_validate({"sandbox": "workspace-write"}).sandbox == "workspace-write"
    with pytest.raises(ValidationError):
        tl.ThreadStartParams.model_validate({"sandbox": "workspaceWrite"})


def test_codex_error_info_parses_strings_and_object_variants() -> None:
    assert _ERROR_INFO.validate_python("usageLimitExceeded") == "usageLimitExceeded"
    info = _ERROR_INFO.validate_python({"responseStreamDisconnected": {"httpStatusCode": None}})
    assert isinstance(info, tu.ResponseStreamDisconnectedInfo)
    steer = _ERROR_INFO.validate_python({"activeTurnNotSteerable": {"turnKind": "review"}})
    assert isinstance(steer, tu.ActiveTurnNotSteerableInfo)


def test_approval_decisions_parse_every_variant() -> None:
    assert _DECISION.validate_python("acceptForSession") == "acceptForSession"
    amended = _DECISION.validate_python({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}})
    assert isinstance(amended, ap.AcceptWithExecpolicyAmendment)
    network = _DECISION.validate_python(
        {"applyNetworkPolicyAmendment": {"network_policy_amendment": {"host": "h", "action": "allow"}}}
    )
    assert isinstance(network, ap.ApplyNetworkPolicyAmendment)


def test_thread_item_union_dispatches_on_type() -> None:
    item = _ITEM.validate_python({"type": "fileChange", "id": "c", "status": "completed", "changes": []})
    assert isinstance(item, it.FileChangeItem)
    compaction = _ITEM.validate_python({"type": "contextCompaction", "id": "x"})
    assert compaction.wire() == {
        "type": "contextCompaction",
        "id": "x",
        "startedAtMs": None,
        "completedAtMs": None,
    }


def test_resume_accepts_the_tether_after_seq_extension() -> None:
    params = tl.ThreadResumeParams.model_validate({"threadId": "t", "afterSeq": 17})
    assert params.after_seq == 17
    assert tl.ThreadResumeParams.model_validate({"threadId": "t"}).after_seq is None


def test_unknown_params_fields_are_ignored() -> None:
    params = tu.TurnInterruptParams.model_validate({"threadId": "t", "turnId": "u", "bogus": 1})
    assert params.wire() == {"threadId": "t", "turnId": "u"}
