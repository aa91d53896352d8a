"""Text frames the WebSocket transport builds itself are the ones websockets would send."""

from __future__ import annotations

import pytest
from websockets.protocol import State
from websockets.server import ServerProtocol

from tether_server.transports.websocket import _text_frames


@pytest.mark.parametrize("size", [0, 5, 125, 126, 65535, 65536, 200_000])
def test_a_batch_of_text_frames_is_byte_identical_to_websockets_own_framing(size: int) -> None:
    payloads = [b"x" * size, b'{"method":"item/agentMessage/delta"}']
    protocol = ServerProtocol()
    protocol.state = State.OPEN
    for payload in payloads:
        protocol.send_text(payload)

    assert _text_frames(payloads) == b"".join(protocol.data_to_send())
