"""MCP servers the user configures (`mcp_servers`), on the official `mcp` SDK's client."""
