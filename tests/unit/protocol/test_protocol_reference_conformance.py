"""Every wire model serialises to something the Codex 0.169.0 reference schema accepts."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from tests.unit.protocol import message_samples as msgs
from tests.unit.protocol import reference_samples as pairs
from tests.unit.protocol import reference_schema as ref
from tests.unit.protocol import wire_samples as samples

import tether_protocol.v2
from tether_protocol.common import WireModel

_ABSTRACT = {"ItemBase"}


def _v2_models() -> set[str]:
    names: set[str] = set()
    for info in pkgutil.iter_modules(tether_protocol.v2.__path__):
        module = importlib.import_module(f"tether_protocol.v2.{info.name}")
        names.update(
            name
            for name, obj in vars(module).items()
            if inspect.isclass(obj) and issubclass(obj, WireModel) and obj.__module__ == module.__name__
        )
    return names - _ABSTRACT


@pytest.mark.parametrize(
    ("definition", "instance"),
    pairs.REFERENCE_SAMPLES,
    ids=[f"{d}-{type(m).__name__}-{i}" for i, (d, m) in enumerate(pairs.REFERENCE_SAMPLES)],
)
def test_model_wire_form_validates_against_reference_definition(definition: str, instance: WireModel) -> None:
    errors = ref.problems(ref.definition_validator(definition), instance.wire())
    assert not errors, f"{type(instance).__name__} rejected by reference {definition}: {errors}"


@pytest.mark.parametrize("value", [v for v in samples.ERROR_INFOS if isinstance(v, str)])
def test_plain_codex_error_kinds_are_reference_values(value: str) -> None:
    assert not ref.problems(ref.definition_validator("CodexErrorInfo"), value)


@pytest.mark.parametrize("value", ["untrusted", "on-request", "never"])
def test_named_approval_policies_are_reference_values(value: str) -> None:
    assert not ref.problems(ref.definition_validator("AskForApproval"), value)


def test_every_v2_model_has_a_reference_sample_or_a_stated_reason() -> None:
    covered = {type(m).__name__ for _, m in pairs.REFERENCE_SAMPLES} | set(pairs.SCHEMALESS_MODELS)
    missing = sorted(_v2_models() - covered)
    assert not missing, f"add samples to tests/unit/protocol/wire_samples.py for: {missing}"


def test_models_without_reference_definition_round_trip_through_their_wire_form() -> None:
    for name, model in pairs.SCHEMALESS_MODELS.items():
        again = type(model).model_validate(model.wire())
        assert again.wire() == model.wire(), name


def test_snake_case_wire_keys_stay_snake_case() -> None:
    wire = samples.TEXT.wire()
    assert "text_elements" in wire
    assert wire["text_elements"][0]["byteRange"] == {"start": 6, "end": 11}
    assert samples.FILE_CHANGE.wire()["changes"][0]["kind"] == {"type": "update", "move_path": None}
    assert samples.GRANULAR.wire() == {
        "granular": {
            "sandbox_approval": True,
            "rules": False,
            "mcp_elicitations": True,
            "skill_approval": True,
            "request_permissions": False,
        }
    }
    decision = msgs.EXEC_APPROVAL.wire()["availableDecisions"][1]
    assert decision == {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch"]}}


def test_null_fields_codex_sends_are_present_as_null() -> None:
    thread = samples.THREAD.wire()
    for key in ("forkedFromId", "gitInfo", "name", "agentNickname", "section", "extra", "daybreakEnabled"):
        assert key in thread and thread[key] is None, key
    turn = samples.TURN.wire()
    assert turn["error"] is None and turn["completedAt"] is None and turn["durationMs"] is None
    agent = samples.AGENT_MESSAGE.wire()
    assert {
        k: agent[k] for k in ("phase", "moderation", "memoryCitation", "delivery", "questions")
    } == dict.fromkeys(("phase", "moderation", "memoryCitation", "delivery", "questions"))
