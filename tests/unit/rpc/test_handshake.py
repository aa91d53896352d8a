"""The stdio front answers only what the full `initialize` validator surely accepts, and records the same."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tether_protocol.v2.initialize import InitializeParams
from tether_server.rpc.handshake import plain_initialize

_INFO = {"name": "cli", "version": "1.2"}


def _frame(params: Any, **extra: Any) -> bytes:
    return json.dumps({"id": "a", "method": "initialize", "params": params, **extra}).encode()


@pytest.mark.parametrize(
    "params",
    [
        {"clientInfo": _INFO},
        {"clientInfo": {**_INFO, "title": None}, "capabilities": None},
        {"clientInfo": {**_INFO, "title": "T"}, "capabilities": {"experimentalApi": True}},
        {"clientInfo": _INFO, "capabilities": {"optOutNotificationMethods": ["a", "b"], "extensions": {}}},
        {
            "clientInfo": _INFO,
            "capabilities": {"optOutNotificationMethods": None, "requestAttestation": True},
        },
    ],
)
def test_an_accepted_handshake_is_one_the_params_model_accepts_alike(params: dict[str, Any]) -> None:
    hello = plain_initialize(_frame(params))
    assert hello is not None
    model = InitializeParams.model_validate(params)
    caps = model.capabilities
    assert (hello.client_name, hello.client_version) == (model.client_info.name, model.client_info.version)
    assert hello.experimental_api == bool(caps and caps.experimental_api)
    assert hello.opt_out == frozenset((caps.opt_out_notification_methods or ()) if caps else ())


@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        {"clientInfo": {"name": "cli"}},
        {"clientInfo": {**_INFO, "version": 1}},
        {"clientInfo": {**_INFO, "extra": 1}},
        {"clientInfo": _INFO, "capabilities": {"experimentalApi": 1}},
        {"clientInfo": _INFO, "capabilities": {"experimentalApi": None}},
        {"clientInfo": _INFO, "capabilities": {"optOutNotificationMethods": [1]}},
        {"clientInfo": _INFO, "capabilities": {"extensions": []}},
        {"clientInfo": _INFO, "capabilities": []},
        {"client_info": _INFO},
        {"clientInfo": {**_INFO, "name": "\u4e2d"}},
    ],
)
def test_anything_less_plain_is_left_to_the_full_server(params: Any) -> None:
    assert plain_initialize(_frame(params)) is None


def test_frames_the_dispatchers_parser_might_read_differently_are_left_alone() -> None:
    plain = _frame({"clientInfo": _INFO})
    assert plain_initialize(plain) is not None
    assert plain_initialize(b"\xef\xbb\xbf" + plain) is None
    assert plain_initialize(plain.replace(b'"cli"', b'"\\ud83d\\ude00"')) is None
    assert plain_initialize(plain.replace(b'"a"', b"18446744073709551616")) is None
    assert plain_initialize(plain.replace(b'"a"', b"1.0")) is None
    assert plain_initialize(plain.decode().encode("utf-16")) is None
    assert plain_initialize(_frame({"clientInfo": _INFO}, jsonrpc="2.0")) is not None
    assert plain_initialize(_frame({"clientInfo": _INFO}, extra=1)) is None
