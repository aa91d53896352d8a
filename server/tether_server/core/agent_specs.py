"""The definitions of the sub-agent tools (`agent_tools`): Codex 0.169.0's names, parameter names,
types and required lists, in the `multi_agent_v1` namespace; the descriptions are Tether's own."""

from __future__ import annotations

from typing import Any

from tether_server.core.tool_specs import function_tool

NAMESPACE = "multi_agent_v1"
DESCRIPTION = "Tools for spawning and managing sub-agents."
EFFORTS = ("low", "medium", "high", "xhigh")
"""The efforts `spawn_agent` takes, as Codex 0.169.0 lists them for gpt-5.5."""
WAIT_DEFAULT_MS, WAIT_MIN_MS, WAIT_MAX_MS = 30_000, 10_000, 3_600_000
"""Codex's bounds for `wait_agent`'s `timeout_ms`."""


def _spec(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None
) -> dict[str, Any]:
    return function_tool(name, description, properties, required, defer_loading=True)


_TARGET = {"type": "string", "description": "The agent's id, as spawn_agent returned it."}
SPECS: tuple[dict[str, Any], ...] = (
    _spec(
        "spawn_agent",
        "Start a sub-agent on a well-scoped task, only when the user asked for sub-agents or delegation. "
        "It works in its own thread with your model and tools; returns its id and nickname.",
        {
            "message": {"type": "string", "description": "The task, in plain text."},
            "model": {"type": "string", "description": "A model for the agent; omit to use yours."},
            "reasoning_effort": {"type": "string", "description": "Its reasoning effort; omit to use yours."},
        },
        None,
    ),
    _spec(
        "send_input",
        "Send a message to a sub-agent: queued for its next turn, or handled now with interrupt=true.",
        {
            "interrupt": {"type": "boolean", "description": "Stop its current work and handle this now."},
            "message": {"type": "string", "description": "The message, in plain text."},
            "target": _TARGET,
        },
        ["target"],
    ),
    _spec(
        "wait_agent",
        "Wait until one of the given sub-agents finishes (or the timeout passes); returns the statuses "
        "of those that finished, with their final messages. Wait only when you need the result now.",
        {
            "targets": {"type": "array", "items": {"type": "string"}, "description": "Agent ids to wait on."},
            "timeout_ms": {
                "type": "number",
                "description": f"Timeout in milliseconds (default {WAIT_DEFAULT_MS}, "
                f"between {WAIT_MIN_MS} and {WAIT_MAX_MS}).",
            },
        },
        ["targets"],
    ),
    _spec(
        "resume_agent",
        "Open again an agent you closed, so that it takes send_input and wait_agent calls.",
        {"id": {"type": "string", "description": "The agent's id."}},
        ["id"],
    ),
    _spec(
        "close_agent",
        "Close a sub-agent you no longer need; returns the status it had.",
        {"target": _TARGET},
        ["target"],
    ),
)
