"""Reference samples of the MCP and dynamic-tool methods, notifications and server requests."""

from __future__ import annotations

from tests.unit.protocol import message_samples as msgs

from tether_protocol.common import WireModel
from tether_protocol.v2 import item_parts as ip
from tether_protocol.v2 import mcp
from tether_protocol.v2 import review as rv


def mcp_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for the models with a reference counterpart."""
    return [
        ("ListMcpServerStatusParams", mcp.ListMcpServerStatusParams(cursor="1", limit=5, detail="full")),
        (
            "ListMcpServerStatusResponse",
            mcp.ListMcpServerStatusResponse(
                data=[
                    mcp.McpServerStatus(
                        name="docs",
                        auth_status="unsupported",
                        runtime_status="connected",
                        server_info=mcp.McpServerInfo(name="docs", version="1.0"),
                        tools={"lookup": {"name": "lookup", "inputSchema": {"type": "object"}}},
                        resources=[{"name": "readme", "uri": "docs://readme"}],
                    )
                ],
                next_cursor=None,
            ),
        ),
        ("McpServerInfo", mcp.McpServerInfo(name="docs", version="1.0", title="Docs")),
        (
            "McpServerStatus",
            mcp.McpServerStatus(
                name="slow", auth_status="bearerToken", runtime_status="failed", tools_error="x"
            ),
        ),
        ("McpServerRefreshResponse", mcp.McpServerRefreshResponse()),
        (
            "McpServerToolCallParams",
            mcp.McpServerToolCallParams(thread_id="t", server="docs", tool="lookup", arguments={"q": 1}),
        ),
        (
            "McpServerToolCallResponse",
            mcp.McpServerToolCallResponse(
                content=[{"type": "text", "text": "x"}], structured_content={"n": 1}
            ),
        ),
        ("McpResourceReadParams", mcp.McpResourceReadParams(server="docs", uri="docs://readme")),
        (
            "McpResourceReadResponse",
            mcp.McpResourceReadResponse(
                contents=[{"uri": "docs://readme", "text": "hi", "mimeType": "text/plain"}]
            ),
        ),
        ("DynamicToolCallParams", msgs.SERVER_REQUEST_SAMPLES["item/tool/call"]),
    ]


def mcp_schemaless() -> dict[str, WireModel]:
    """Client answers to server requests (no reference schema), and the elicitation's oneOf."""
    return {
        "McpServerElicitationRequestResponse": mcp.McpServerElicitationRequestResponse(action="accept"),
        "DynamicToolCallResponse": mcp.DynamicToolCallResponse(
            content_items=[ip.InputTextContentItem(text="ok")], success=True
        ),
        # A oneOf with the mode-specific fields in the reference; validated through ServerRequest.json.
        "McpServerElicitationRequestParams": msgs.SERVER_REQUEST_SAMPLES["mcpServer/elicitation/request"],
        "McpToolCallGuardianApprovalReviewAction": rv.McpToolCallGuardianApprovalReviewAction(
            server="docs", tool_name="lookup"
        ),
    }
