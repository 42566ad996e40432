"""A real stdio MCP server for the Codex MCP tests (the ``mcp`` SDK's MCPServer).

Tool ``add_note(text)`` appends ``text`` to ``$NOTES_FILE`` and answers ``noted: <text>``.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


@server.tool()
def add_note(text: str) -> str:
    """Append a note to the notes file."""
    with Path(os.environ["NOTES_FILE"]).open("a") as notes:
        notes.write(text + "\n")
    return f"noted: {text}"


if __name__ == "__main__":
    server.run("stdio")
