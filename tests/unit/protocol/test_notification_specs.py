"""Each server notification is one spec constant, bound to a params model the reference accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.support.schema import notification_errors, reference_dir
from tests.unit.protocol import message_samples as msgs

from tether_protocol import jsonrpc
from tether_protocol import server_methods as sm
from tether_protocol.methods import SERVER_NOTIFICATIONS
from tether_protocol.spec import AnyNotificationSpec, NotificationSpec

# protocol §9, route "B": every initialized connection hears these, subscribed to the thread or not.
BROADCAST = {
    "thread/started",
    "thread/status/changed",
    "thread/closed",
    "thread/archived",
    "thread/unarchived",
    "thread/deleted",
    "thread/name/updated",
    "thread/goal/cleared",
    "account/rateLimits/updated",
    "thread/section/changed",  # Codex's schema: "Broadcast after a successful move"
    # Codex 0.169.0 sent it for an archived, unloaded thread the connection no longer followed.
    "thread/attachment/updated",
    "project/changed",
    "thread/project/updated",
    "skills/changed",  # an invalidation of the skills every client lists
}


def _reference_params(method: str) -> dict[str, Any]:
    root = json.loads((reference_dir() / "ServerNotification.json").read_text())
    for branch in root["oneOf"]:
        if method in branch["properties"]["method"].get("enum", []):
            params: dict[str, Any] = branch["properties"]["params"]
            if "$ref" in params:
                params = root["definitions"][params["$ref"].rsplit("/", 1)[1]]
            return params
    raise AssertionError(f"{method}: not a notification of the reference protocol")


def test_every_notification_in_the_table_is_a_named_spec_constant() -> None:
    constants = {
        name: spec for name, spec in vars(sm).items() if isinstance(spec, NotificationSpec) and name.isupper()
    }
    assert sorted(spec.name for spec in constants.values()) == sorted(SERVER_NOTIFICATIONS)
    for spec in constants.values():
        assert SERVER_NOTIFICATIONS[spec.name] is spec


def test_broadcast_is_a_property_of_the_spec_as_the_protocol_routes_it() -> None:
    assert {name for name, spec in SERVER_NOTIFICATIONS.items() if spec.broadcast} == BROADCAST


@pytest.mark.parametrize("spec", list(SERVER_NOTIFICATIONS.values()), ids=lambda spec: spec.name)
def test_the_specs_params_model_fits_the_reference_schema(spec: AnyNotificationSpec) -> None:
    reference = _reference_params(spec.name)
    fields = {field.alias or name for name, field in spec.params.model_fields.items()}
    assert fields <= set(reference.get("properties", {})), f"{spec.name}: fields the reference lacks"
    assert set(reference.get("required", [])) <= fields, f"{spec.name}: required fields the model lacks"
    sample = msgs.NOTIFICATION_SAMPLES[spec.name]
    assert isinstance(sample, spec.params)
    assert notification_errors(jsonrpc.notification(spec.name, sample.wire(), 1)) == []
