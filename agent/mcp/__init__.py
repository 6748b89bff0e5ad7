"""``kite mcp``: Kite's browser as an MCP server (see server.py)."""
