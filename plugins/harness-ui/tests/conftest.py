"""Helpers for the harness-ui tests: SSE parsing and useChat-like request bodies."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette


def parse_sse(text: str) -> list[Any]:
    """The ``data:`` payloads of an SSE body: chunk dicts, and the string ``"[DONE]"``."""
    events: list[Any] = []
    for block in text.split("\n\n"):
        if block.startswith("data: "):
            data = block[len("data: "):]
            events.append(data if data == "[DONE]" else json.loads(data))
        elif block.strip():
            raise AssertionError(f"not an SSE data event: {block!r}")
    return events


def user_message(text: str, id: str = "u1") -> dict[str, Any]:
    return {"id": id, "role": "user", "parts": [{"type": "text", "text": text}]}


def answers_message(chunks: list[Any], *, approve: dict[str, bool] | None = None,
                    outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The assistant message useChat sends back after the user answered: the response's
    tool calls, with ``approve[tool name]`` decisions and ``outputs[tool name]`` results."""
    message_id = next(c["messageId"] for c in chunks if isinstance(c, dict) and c["type"] == "start")
    calls = {c["toolCallId"]: c for c in chunks if isinstance(c, dict) and c["type"] == "tool-input-available"}
    parts: list[dict[str, Any]] = [{"type": "step-start"}]
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        if chunk["type"] == "tool-approval-request":
            call = calls[chunk["toolCallId"]]
            approved = (approve or {}).get(call["toolName"], False)
            parts.append({"type": f"tool-{call['toolName']}", "toolCallId": call["toolCallId"],
                          "state": "approval-responded", "input": call["input"],
                          "providerExecuted": call.get("providerExecuted"),
                          "approval": {"id": chunk["approvalId"], "approved": approved,
                                       **({} if approved else {"reason": "denied in the test"})}})
    for call in calls.values():
        if call["toolName"] in (outputs or {}):
            parts.append({"type": f"tool-{call['toolName']}", "toolCallId": call["toolCallId"],
                          "state": "output-available", "input": call["input"],
                          "output": (outputs or {})[call["toolName"]]})
    return {"id": message_id, "role": "assistant", "parts": parts}


class Chat:
    """A chat against an ASGI app: keeps the messages and every response body."""

    def __init__(self, client: httpx.AsyncClient, chat_id: str = "chat-1") -> None:
        self.client = client
        self.chat_id = chat_id
        self.messages: list[dict[str, Any]] = []
        self.exchanges: list[dict[str, Any]] = []

    async def post(self, message: dict[str, Any]) -> list[Any]:
        continues = message["role"] == "assistant"
        if continues and self.messages and self.messages[-1]["role"] == "assistant":
            self.messages[-1] = message
        else:
            self.messages.append(message)
        response = await self.client.post("/api/chat", json={"id": self.chat_id, "messages": self.messages,
                                                              "trigger": "submit-message"})
        assert response.status_code == 200, response.text
        self.exchanges.append({"sse": response.text, "continues": continues})
        return parse_sse(response.text)


@pytest.fixture
def asgi_client() -> Any:
    def make(app: Starlette) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")

    return make
