"""A client that goes away mid-stream (useChat's stop(), a closed tab): the slice is
aborted, the session detached, and the next message of the chat works."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from harness_ui import SessionBinding, SqliteChatStore, create_chat_app

from harness_core import LocalSandbox
from harness_core.testing import CallBuiltin, Say, ScriptedAdapter, Sleep

from .conftest import parse_sse, serve_in_thread, user_message


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, SqliteChatStore]]:
    runtime = ScriptedAdapter([
        [[Say("Working."), CallBuiltin("bash", {"command": "echo started"}), Sleep(600)], [Say("never")]],
        [[Say("Back again.")]],
    ])
    store = SqliteChatStore(tmp_path / "chats.sqlite")
    app = create_chat_app(runtime.agent(), store=store,
                          bind=lambda request, chat_id: SessionBinding(sandbox=LocalSandbox(tmp_path)))
    with serve_in_thread(app) as url:
        yield url, store


def test_a_disconnect_detaches_the_session(served: tuple[str, SqliteChatStore]) -> None:
    url, store = served
    body: dict[str, Any] = {"id": "chat-d", "messages": [user_message("Work")], "trigger": "submit-message"}
    seen: list[dict[str, Any]] = []
    with httpx.Client(timeout=60) as client, client.stream("POST", f"{url}/api/chat", json=body) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: {"):
                seen.append(json.loads(line[6:]))
                if seen[-1]["type"] == "tool-input-available":
                    other = httpx.post(f"{url}/api/chat", json=body, timeout=60)   # a second tab
                    assert other.status_code == 409 and "is running a turn" in other.json()["error"]
                    break               # leave while the runtime sleeps
    assert any(c["type"] == "tool-input-available" for c in seen)
    deadline = time.monotonic() + 60
    while True:   # the server notices the disconnect, aborts the slice and stores the session


        with sqlite3.connect(store.path) as db:
            row = db.execute("SELECT kind FROM harness_chats WHERE chat_id = 'chat-d'").fetchone()
        if row is not None:
            break
        assert time.monotonic() < deadline, "the session was not detached after the client left"
        time.sleep(0.2)
    assert row == ("stopped",)
    again = httpx.post(f"{url}/api/chat", json={**body, "messages": [user_message("Work"), user_message("Again", "u2")]},
                       timeout=60)
    assert again.status_code == 200, again.text
    text = "".join(c["delta"] for c in parse_sse(again.text) if isinstance(c, dict) and c["type"] == "text-delta")
    assert text == "Back again."
