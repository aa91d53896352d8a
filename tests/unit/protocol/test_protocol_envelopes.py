"""Notifications and server requests, wrapped in their envelopes, validate against the reference roots."""

from __future__ import annotations

import pytest
from tests.unit.protocol import message_samples as msgs
from tests.unit.protocol import reference_samples as pairs
from tests.unit.protocol import reference_schema as ref

from tether_protocol import EmptyParams, jsonrpc
from tether_protocol.methods import CLIENT_METHODS, SERVER_NOTIFICATIONS, SERVER_REQUESTS


def test_every_notification_in_the_table_has_a_sample() -> None:
    assert set(msgs.NOTIFICATION_SAMPLES) == set(SERVER_NOTIFICATIONS)


def test_every_server_request_in_the_table_has_a_sample() -> None:
    assert set(msgs.SERVER_REQUEST_SAMPLES) == set(SERVER_REQUESTS)


@pytest.mark.parametrize("method", sorted(SERVER_NOTIFICATIONS))
def test_notification_envelope_validates_against_server_notification_schema(method: str) -> None:
    params = msgs.NOTIFICATION_SAMPLES[method]
    assert isinstance(params, SERVER_NOTIFICATIONS[method].params)
    envelope = jsonrpc.notification(method, params.wire(), emitted_at_ms=1)
    assert envelope == {"method": method, "params": params.wire(), "emittedAtMs": 1}
    errors = ref.problems(ref.root_validator("ServerNotification.json"), envelope)
    assert not errors, errors


@pytest.mark.parametrize("method", sorted(SERVER_REQUESTS))
def test_server_request_envelope_validates_against_server_request_schema(method: str) -> None:
    params = msgs.SERVER_REQUEST_SAMPLES[method]
    assert isinstance(params, SERVER_REQUESTS[method].params)
    errors = ref.problems(ref.root_validator("ServerRequest.json"), jsonrpc.request(0, method, params.wire()))
    assert not errors, errors


@pytest.mark.parametrize("method", sorted(m for m, spec in CLIENT_METHODS.items() if not spec.experimental))
def test_default_client_params_validate_against_client_request_schema(method: str) -> None:
    spec = CLIENT_METHODS[method]
    sample = next((m for _, m in pairs.REFERENCE_SAMPLES if type(m) is spec.params), None)
    params = sample if sample is not None else spec.params.model_validate({})
    # Methods that take nothing (EmptyParams) go without `params`, as Codex declares them.
    wire = None if spec.params is EmptyParams else params.wire()
    errors = ref.problems(ref.root_validator("ClientRequest.json"), jsonrpc.request(7, method, wire))
    assert not errors, errors
