"""Helpers for the harness-ui tests: SSE parsing and useChat-like request bodies."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
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
        if chunk["type"] == "tool-approval-request" and not chunk.get("isAutomatic"):  # automatic: decided
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


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    """A ``harness serve`` subprocess on 127.0.0.1 (stopped by :meth:`stop`)."""

    def __init__(self, *args: str, cwd: Any = None, timeout: float = 90.0) -> None:
        import subprocess
        import sys
        import time

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([sys.executable, "-m", "harness_core.cli", "serve", "--port", str(self.port),
                                         *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"harness serve exited: {self.process.stdout.read() if self.process.stdout else ''}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"harness serve did not answer on {self.url} within {timeout} s")
            time.sleep(0.3)

    def stop(self) -> str:
        """Terminate the server (this process only) and return its output."""
        import subprocess

        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        return self.process.stdout.read() if self.process.stdout else ""


@contextlib.contextmanager
def serve_in_thread(app: Starlette) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    import threading
    import time

    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
