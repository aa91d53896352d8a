"""The SSE decoder turns arbitrary byte chunks into events, with no event loop involved."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from tether_server.providers.sse import SseDecoder, SseEvent


def feed_all(decoder: SseDecoder, chunks: list[bytes]) -> list[SseEvent]:
    events: list[SseEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    return events


STREAM = b'event: response.created\ndata: {"a":1}\n\nevent: response.completed\ndata: {"b":2}\n\n'


def test_whole_stream_in_one_chunk_yields_every_event_in_order() -> None:
    events = SseDecoder().feed(STREAM)

    assert events == [
        SseEvent("response.created", '{"a":1}'),
        SseEvent("response.completed", '{"b":2}'),
    ]


def test_stream_split_at_every_byte_yields_the_same_events() -> None:
    chunks = [STREAM[i : i + 1] for i in range(len(STREAM))]

    assert feed_all(SseDecoder(), chunks) == SseDecoder().feed(STREAM)


def test_event_is_only_dispatched_once_its_blank_line_arrives() -> None:
    decoder = SseDecoder()

    assert decoder.feed(b"data: partial\n") == []
    assert decoder.feed(b"\n") == [SseEvent("message", "partial")]


def test_multiple_data_lines_are_joined_with_newlines() -> None:
    events = SseDecoder().feed(b"data: first\ndata:second\ndata:  third\n\n")

    assert events == [SseEvent("message", "first\nsecond\n third")]


def test_comment_lines_are_ignored() -> None:
    events = SseDecoder().feed(b": keep-alive\n\n:another\ndata: x\n: inside\n\n")

    assert events == [SseEvent("message", "x")]


def test_crlf_and_bare_cr_line_endings_are_accepted() -> None:
    # A final CR could be half of a CRLF, so the last event is known once the next byte arrives.
    events = feed_all(SseDecoder(), [b"event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r", b":"])

    assert events == [SseEvent("a", "1"), SseEvent("b", "2")]


def test_crlf_split_between_chunks_does_not_produce_an_extra_blank_line() -> None:
    events = feed_all(SseDecoder(), [b"data: 1\r", b"\ndata: 2\r", b"\n\r", b"\n"])

    assert events == [SseEvent("message", "1\n2")]


def test_event_without_data_is_not_dispatched_and_does_not_leak_its_name() -> None:
    events = SseDecoder().feed(b"event: ping\n\ndata: x\n\n")

    assert events == [SseEvent("message", "x")]


def test_multibyte_character_split_across_chunks_is_decoded_intact() -> None:
    raw = 'data: {"delta":"héllo ✓"}\n\n'.encode()
    cut = raw.index("✓".encode()) + 1

    events = feed_all(SseDecoder(), [raw[:cut], raw[cut:]])

    assert events == [SseEvent("message", '{"delta":"héllo ✓"}')]


def test_id_field_is_reported_and_field_without_colon_counts_as_empty() -> None:
    events = SseDecoder().feed(b"id: 7\ndata\ndata: y\n\n")

    assert events == [SseEvent("message", "\ny", "7")]


def _reference(stream: bytes) -> list[SseEvent]:
    """The WHATWG grammar applied line by line to a whole stream, as plainly as it is written."""
    text = stream.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    events: list[SseEvent] = []
    name, last_id = "", None
    data: list[str] = []
    for line in text.split("\n")[:-1]:  # the part after the last line end is not a line yet
        if not line:
            if data:
                events.append(SseEvent(name or "message", "\n".join(data), last_id))
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, colon, value = line.partition(":")
        value = value[1:] if colon and value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
        elif field == "id" and "\0" not in value:
            last_id = value
    return events


_LINES = st.sampled_from(
    [
        b"event: response.output_text.delta",
        b"event:x",
        b"event: ",
        b'data: {"type":"response.output_text.delta","delta":"tok"}',
        b"data:  two spaces",
        b"data",
        b"data:",
        b": comment",
        b"id: 7",
        b"retry: 10",
        b"",
        "data: héllo ✓".encode(),
    ]
)


@given(
    lines=st.lists(_LINES, max_size=30),
    ending=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=8),
)
def test_any_stream_cut_anywhere_decodes_as_the_grammar_says(
    lines: list[bytes], ending: bytes, cuts: list[int]
) -> None:
    stream = b"".join(line + ending for line in lines) + b"\n"  # a final byte settles a trailing CR
    bounds = sorted({min(cut, len(stream)) for cut in cuts} | {0, len(stream)})
    chunks = [stream[a:b] for a, b in itertools.pairwise(bounds)]

    assert feed_all(SseDecoder(), chunks) == _reference(stream)


def test_data_alone_comes_out_undecoded_for_the_same_events() -> None:
    decoder = SseDecoder()

    assert decoder.feed_data(STREAM[:39]) == [b'{"a":1}']
    assert decoder.feed_data(STREAM[39:]) == [b'{"b":2}']
