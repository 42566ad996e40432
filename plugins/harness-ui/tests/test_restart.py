"""A paused turn survives its server: started on one ``harness serve`` process, stopped,
continued on a second process that shares only the SQLite store."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx

from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

from .conftest import Served, answers_message, parse_sse, user_message


def responder(request: Any) -> Any:
    if request.is_side_request:
        return None
    if request.turn_index == 0:
        return ModelTurn("Let me write it.", tool_calls=[
            ToolCallSpec("bash", {"command": "echo restarted > proof.txt && cat proof.txt"})])
    return f"The command said: {(request.last_tool_result or '').strip()}"


def post(url: str, messages: list[dict[str, Any]]) -> list[Any]:
    response = httpx.post(f"{url}/api/chat", json={"id": "chat-restart", "messages": messages,
                                                   "trigger": "submit-message"}, timeout=120)
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def test_a_continuation_runs_on_a_second_server_after_the_first_stopped(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    store = tmp_path / "chats.sqlite"
    with ScriptedModelServer(responder) as model:
        args = ("--harness", "builtin", "--model", "anthropic:scripted", "--base-url", model.base_url,
                "-o", "api_key=test", "--cwd", str(workspace), "--store", str(store))
        first = Served(*args, cwd=tmp_path)
        try:
            question = user_message("Write the proof file")
            paused = post(first.url, [question])
        finally:
            first.stop()
        assert first.process.returncode is not None
        assert paused[-2]["messageMetadata"]["harness"]["finishReason"] == "awaiting-approval"
        assert not (workspace / "proof.txt").exists()
        with sqlite3.connect(store) as db:
            assert db.execute("SELECT kind FROM harness_chats WHERE chat_id = 'chat-restart'").fetchone() == ("suspended",)

        second = Served(*args, cwd=tmp_path)
        try:
            done = post(second.url, [question, answers_message(paused, approve={"bash": True})])
        finally:
            second.stop()
    assert (workspace / "proof.txt").read_text().strip() == "restarted"
    text = "".join(c["delta"] for c in done if isinstance(c, dict) and c["type"] == "text-delta")
    assert "The command said: restarted" in text
    assert done[0] == {"type": "start", "messageId": paused[0]["messageId"]}
    assert done[-1] == "[DONE]"
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT kind FROM harness_chats WHERE chat_id = 'chat-restart'").fetchone() == ("stopped",)
