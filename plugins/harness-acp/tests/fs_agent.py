"""A minimal ACP agent for tests, built on the agent-client-protocol SDK's agent side.

Run as ``python fs_agent.py``. Each prompt's text is a JSON list of file operations,
``{"op": "read" | "write" | "ask-write", "path": ..., "content": ...}``, performed through the
client's ``fs/read_text_file`` / ``fs/write_text_file`` (``ask-write`` first asks
``session/request_permission`` about an ``edit`` call located at the path, as Zed's agents do); the outcome of each is reported
as an agent message line (``READ:<text>``, ``WROTE:<path>`` or ``REFUSED:<error>``). It
exists because neither codex-acp nor pi-acp asks the client for files.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import acp


class FsAgent:
    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> Any:
        fs = getattr(client_capabilities, "fs", None)
        self.can_read = bool(getattr(fs, "read_text_file", False))
        self.can_write = bool(getattr(fs, "write_text_file", False))
        return acp.InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> Any:
        return acp.NewSessionResponse(session_id="fs-session")

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> Any:
        text = "".join(getattr(block, "text", "") for block in prompt)
        operations = json.loads(text[text.index("["):])
        for operation in operations:
            try:
                if operation["op"] == "read":
                    if not self.can_read:
                        raise RuntimeError("client did not advertise fs.readTextFile")
                    response = await self.conn.read_text_file(session_id=session_id, path=operation["path"])
                    line = f"READ:{response.content}"
                else:
                    if operation["op"] == "ask-write" and not await self._ask(session_id, operation["path"]):
                        raise RuntimeError("permission rejected")
                    if not self.can_write:
                        raise RuntimeError("client did not advertise fs.writeTextFile")
                    await self.conn.write_text_file(session_id=session_id, path=operation["path"],
                                                    content=operation["content"])
                    line = f"WROTE:{operation['path']}"
            except Exception as error:
                line = f"REFUSED:{error}"
            await self.conn.session_update(session_id=session_id, update=acp.update_agent_message_text(line + "\n"))
        return acp.PromptResponse(stop_reason="end_turn")

    async def _ask(self, session_id: str, path: str) -> bool:
        self.asked = getattr(self, "asked", 0) + 1
        call = acp.schema.ToolCallUpdate(tool_call_id=f"edit-{self.asked}", title=f"Write {path}", kind="edit",
                                         status="pending", locations=[acp.schema.ToolCallLocation(path=path)],
                                         raw_input={"path": path})
        await self.conn.session_update(session_id=session_id, update=acp.start_tool_call(
            f"edit-{self.asked}", f"Write {path}", kind="edit", status="pending",
            locations=[acp.schema.ToolCallLocation(path=path)], raw_input={"path": path}))
        options = [acp.schema.PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                   acp.schema.PermissionOption(option_id="no", name="Reject", kind="reject_once")]
        response = await self.conn.request_permission(session_id=session_id, tool_call=call, options=options)
        allowed = getattr(response.outcome, "option_id", None) == "yes"
        await self.conn.session_update(session_id=session_id, update=acp.update_tool_call(
            f"edit-{self.asked}", status="completed" if allowed else "failed"))
        return allowed

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


if __name__ == "__main__":
    asyncio.run(acp.run_agent(FsAgent()))
