"""What the core sees of a model provider: settings, one request, the events of one response."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ProviderSettings:
    """Connection settings of one `model_providers.<id>` entry, already resolved from config.

    Attributes:
        name: provider id, used in logs only.
        base_url: e.g. ``https://api.openai.com/v1``; ``/responses`` is appended.
        api_key: bearer token, or None to send no Authorization header.
        http_headers: extra headers sent with every request.
        query_params: extra query parameters appended to every request URL.
        stream_idle_timeout_s: longest silence allowed between two SSE events.
        request_max_retries: retry budget of the HTTP layer (used by the caller).
        stream_max_retries: retry budget of the turn-level stream loop (used by the caller).
        on_response_headers: called with the headers of each successful response (rate limits).
    """

    name: str
    base_url: str
    api_key: str | None = None
    http_headers: Mapping[str, str] = field(default_factory=dict)
    query_params: Mapping[str, str] = field(default_factory=dict)
    stream_idle_timeout_s: float = 300.0
    request_max_retries: int = 4
    stream_max_retries: int = 5
    on_response_headers: Callable[[Mapping[str, str]], None] | None = field(default=None, compare=False)


@dataclass
class ModelRequest:
    """One Responses API request. `body()` is the JSON body; `headers` are per-request extras.

    Attributes:
        model: model slug.
        instructions: base instructions; omitted from the body when empty.
        input: history items in Responses API wire shape.
        tools: serialized tool specs.
        parallel_tool_calls: whether the model may emit several calls per response.
        reasoning: ``{"effort": …, "summary": …}`` or None (always serialized).
        text: ``{"verbosity": …, "format": …}`` or None (omitted when None).
        prompt_cache_key: constant per thread so the server can reuse the cached prefix.
        store: False except for endpoints that keep responses server-side.
        include: e.g. ``["reasoning.encrypted_content"]``.
        service_tier: ``"priority"`` / ``"flex"`` or None (omitted).
        client_metadata: optional metadata object (omitted when None).
        headers: extra request headers such as ``session_id``.
        reasoning_effort: the thread's own effort, None when it has none. The Responses body says
            it in `reasoning` (with a default); a chat server is sent ``reasoning_effort`` only
            when the user chose one, so its own default stands otherwise.
    """

    model: str
    instructions: str
    input: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    parallel_tool_calls: bool = False
    reasoning: dict[str, Any] | None = None
    text: dict[str, Any] | None = None
    prompt_cache_key: str | None = None
    store: bool = False
    include: list[str] = field(default_factory=list)
    service_tier: str | None = None
    client_metadata: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    reasoning_effort: str | None = None

    def body(self) -> dict[str, Any]:
        """The JSON body. Key order is fixed so equal requests serialize to equal bytes."""
        body: dict[str, Any] = {"model": self.model}
        if self.instructions:
            body["instructions"] = self.instructions
        body["stream"] = True
        body["input"] = self.input
        body["tools"] = self.tools
        body["tool_choice"] = "auto"
        body["parallel_tool_calls"] = self.parallel_tool_calls
        body["reasoning"] = self.reasoning
        body["store"] = self.store
        body["include"] = self.include
        optional = {
            "service_tier": self.service_tier,
            "prompt_cache_key": self.prompt_cache_key,
            "text": self.text,
            "client_metadata": self.client_metadata,
        }
        body.update((key, value) for key, value in optional.items() if value is not None)
        return body


@dataclass(frozen=True)
class TokenUsage:
    """Token counts of one response, from `response.completed`."""

    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class Created:
    """`response.created`: the server accepted the request."""

    response_id: str


@dataclass(frozen=True)
class OutputItemAdded:
    """`response.output_item.added`: an item starts; deltas for it follow."""

    item: dict[str, Any]


@dataclass(slots=True)
class OutputTextDelta:
    """`response.output_text.delta`: more assistant text for item `item_id`.

    The delta events are slotted and not frozen: one is built per streamed token, and a frozen
    dataclass's ``__init__`` costs several times a plain one's. Nothing changes them after.
    """

    item_id: str
    delta: str


@dataclass(frozen=True)
class ReasoningSummaryPartAdded:
    """`response.reasoning_summary_part.added`: a new summary section begins."""

    item_id: str
    summary_index: int


@dataclass(slots=True)
class ReasoningSummaryDelta:
    """`response.reasoning_summary_text.delta`: more text for one summary section."""

    item_id: str
    summary_index: int
    delta: str


@dataclass(slots=True)
class ReasoningTextDelta:
    """`response.reasoning_text.delta`: more raw reasoning text."""

    item_id: str
    content_index: int
    delta: str


@dataclass(slots=True)
class ToolCallInputDelta:
    """`response.custom_tool_call_input.delta`: streamed input of a custom (freeform) tool call."""

    item_id: str
    call_id: str | None
    delta: str


@dataclass(frozen=True)
class OutputItemDone:
    """`response.output_item.done`: the authoritative, complete item."""

    item: dict[str, Any]


@dataclass(frozen=True)
class Completed:
    """`response.completed`: the response finished; nothing follows."""

    response_id: str
    usage: TokenUsage | None


ModelEvent = (
    Created
    | OutputItemAdded
    | OutputTextDelta
    | ReasoningSummaryPartAdded
    | ReasoningSummaryDelta
    | ReasoningTextDelta
    | ToolCallInputDelta
    | OutputItemDone
    | Completed
)


class ModelProvider(Protocol):
    """Streams one model response. One attempt: retrying is the caller's job."""

    def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelEvent]]:
        """What `stream` yields, a batch at a time: the events of each chunk read from the network.

        The turn loop reads a response this way: one step of the iterator per chunk rather than
        per token (a response streams thousands of tokens, often hundreds in a chunk).

        Raises:
            ProviderError: the request or the stream failed; `retryable` says whether to retry.
        """
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Send `request` and yield its events until `Completed`.

        Raises:
            ProviderError: the request or the stream failed; `retryable` says whether to retry.
        """
        ...
