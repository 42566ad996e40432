"""The chat app end to end in process (a scripted runtime), and the AI SDK's own reader
over what it streamed (``frontend/test/protocol.mjs``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_ui import (
    ErrorReport,
    MemoryChatStore,
    SessionBinding,
    SqliteChatStore,
    create_chat_app,
)

from harness_core import LocalSandbox, define_harness_tool
from harness_core.testing import (
    CallBuiltin,
    CallHost,
    ChangeFile,
    EchoResults,
    Fail,
    Say,
    ScriptedAdapter,
)

from .conftest import Chat, answers_message, parse_sse, user_message

FRONTEND = Path(__file__).resolve().parents[1] / "frontend"

record = define_harness_tool(
    name="record", description="Record a note.",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=lambda input, ctx: f"recorded {input['text']}",
)
forbidden = define_harness_tool(
    name="forbidden", description="Never runs.", input={"type": "object", "properties": {}},
    execute=lambda input, ctx: "ran",
)
pick_color = define_harness_tool(name="pick_color", description="Ask the user for a color.",
                                 input={"type": "object", "properties": {"question": {"type": "string"}}})


def scenario_agent() -> Any:
    runtime = ScriptedAdapter([
        [[Say("Looking."), CallBuiltin("bash", {"command": "echo built-in > out.txt"}),
          CallHost("record", {"text": "one"}), CallHost("forbidden", {}), ChangeFile("notes.md", "add")],
         [EchoResults("Saw:")]],
        [[CallHost("pick_color", {"question": "Favourite?"})],
         [Fail("upstream 500 from https://models.internal with key sk-live-123", "model-error")]],
    ])
    return runtime.agent(tools=[record, forbidden, pick_color],
                         tool_approval={"record": "user-approval", "forbidden": "denied"},
                         permission_mode="allow-edits")


def types(chunks: list[Any]) -> list[str]:
    return [c["type"] if isinstance(c, dict) else c for c in chunks]


async def run_scenario(app: Any, asgi_client: Any) -> Chat:
    async with asgi_client(app) as client:
        chat = Chat(client)
        first = await chat.post(user_message("Do the work"))
        assert types(first)[-2:] == ["finish", "[DONE]"]
        assert first[-2]["messageMetadata"]["harness"]["finishReason"] == "awaiting-approval"
        requests = [c for c in first if isinstance(c, dict) and c["type"] == "tool-approval-request"]
        assert [c.get("isAutomatic") for c in requests] == [None, None, True]  # bash, record; forbidden
        assert types(first).count("tool-output-denied") == 1
        second = await chat.post(answers_message(first, approve={"bash": True, "record": False}))
        assert "tool-output-denied" in types(second)
        text = "".join(c["delta"] for c in second if isinstance(c, dict) and c["type"] == "text-delta")
        assert "record: Execution denied: denied in the test" in text
        third = await chat.post(user_message("And a color?", id="u2"))
        assert third[-2]["messageMetadata"]["harness"]["finishReason"] == "awaiting-tool-result"
        fourth = await chat.post(answers_message(third, outputs={"pick_color": "teal"}))
        assert "error" in types(fourth)
    return chat


def test_a_full_chat_streams_and_continues(tmp_path: Path, asgi_client: Any) -> None:
    reports: list[ErrorReport] = []
    app = create_chat_app(scenario_agent(), store=SqliteChatStore(tmp_path / "chats.sqlite"),
                          bind=lambda request, chat_id: SessionBinding(sandbox=LocalSandbox(tmp_path)),
                          on_error=reports.append)
    chat = anyio.run(run_scenario, app, asgi_client)
    assert (tmp_path / "out.txt").read_text().strip() == "built-in"
    error = next(c for c in parse_sse(chat.exchanges[-1]["sse"]) if isinstance(c, dict) and c["type"] == "error")
    assert "sk-live-123" not in error["errorText"] and "internal" not in error["errorText"]
    assert any("sk-live-123" in report.message for report in reports)


@pytest.mark.requires_runtime("node")
def test_the_ai_sdk_reader_accepts_every_chunk(tmp_path: Path, asgi_client: Any) -> None:
    if not (FRONTEND / "node_modules" / "ai").is_dir():
        pytest.fail("frontend/node_modules is missing: run `npm ci --prefix plugins/harness-ui/frontend`")
    app = create_chat_app(scenario_agent(), store=MemoryChatStore(),
                          bind=lambda request, chat_id: SessionBinding(sandbox=LocalSandbox(tmp_path)))
    chat = anyio.run(run_scenario, app, asgi_client)
    exchanges = tmp_path / "exchanges.json"
    exchanges.write_text(json.dumps({"exchanges": chat.exchanges}))
    completed = subprocess.run(["node", str(FRONTEND / "test" / "protocol.mjs"), str(exchanges)], cwd=FRONTEND,
                               capture_output=True, text=True, timeout=120, check=False, env=dict(os.environ))
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    result = json.loads(completed.stdout)
    assert result["rejected"] == [] and result["errors"] == []
    first_turn, _, second_turn, last = result["messages"]
    parts = {p.get("toolCallId"): p for p in result["messages"][1]["parts"] if "toolCallId" in p}
    states = {(p["type"], p["state"]) for p in parts.values()}
    assert ("tool-bash", "output-available") in states             # built-in, approved, ran
    assert ("tool-record", "output-denied") in states              # host call, denied
    assert ("tool-forbidden", "output-denied") in states           # denied by configuration
    forbidden_part = next(p for p in parts.values() if p["type"] == "tool-forbidden")
    assert forbidden_part["approval"]["isAutomatic"] is True and forbidden_part["approval"]["approved"] is False
    assert ("dynamic-tool", "output-available") in states          # fileChange
    bash = next(p for p in parts.values() if p["type"] == "tool-bash")
    assert bash["providerExecuted"] is True
    dynamic = next(p for p in parts.values() if p["type"] == "dynamic-tool")
    assert dynamic["toolName"] == "fileChange" and dynamic["providerExecuted"] is True
    pick = next(p for p in last["parts"] if p.get("type") == "tool-pick_color")
    assert pick["state"] == "output-available"
    assert len(result["errorChunks"]) == 1 and "Reference: err-" in result["errorChunks"][0]
    assert first_turn["id"] == result["messages"][1]["id"] and second_turn["id"] == last["id"]


def test_bad_bodies_and_conflicts(tmp_path: Path, asgi_client: Any) -> None:
    app = create_chat_app(scenario_agent(), store=MemoryChatStore())

    async def main() -> None:
        async with asgi_client(app) as client:
            response = await client.post("/api/chat", content=b"{not json")
            assert response.status_code == 400 and "not JSON" in response.json()["error"]
            response = await client.post("/api/chat", json={"id": "c", "messages": []})
            assert response.status_code == 400
            assert response.json() == {"error": "'messages' must be a non-empty list of UI messages"}
            orphan = {"id": "m", "role": "assistant", "parts": [
                {"type": "tool-bash", "toolCallId": "c1", "state": "approval-responded",
                 "approval": {"id": "a1", "approved": True}}]}
            response = await client.post("/api/chat", json={"id": "c", "messages": [user_message("x"), orphan]})
            assert response.status_code == 409 and "has no paused turn" in response.json()["error"]
            page = await client.get("/")
            assert page.status_code == 200 and "/static/app.js" in page.text
            assert (await client.get("/static/app.js")).status_code == 200

    anyio.run(main)


@pytest.mark.requires_runtime("node")
@pytest.mark.parametrize("bad", [
    'data: {"type":"start"}\n\ndata: {"type":"text-start","id":"t"}\n\ndata: {"type":"text-delta","id":"t","text":"x"}\n\n',
    'data: {"type":"start"}\n\ndata: {"type":"tool-output-available","toolCallId":"nope","output":1}\n\n',
    'data: {"type":"start"}\n\ndata: {"type":"finish","finishReason":"awaiting-approval"}\n\n',
])
def test_the_reader_script_fails_on_a_bad_stream(tmp_path: Path, bad: str) -> None:
    """The protocol check can fail: a full-stream field name, an output for an unknown
    call, a harness-only finish reason."""
    if not (FRONTEND / "node_modules" / "ai").is_dir():
        pytest.fail("frontend/node_modules is missing: run `npm ci --prefix plugins/harness-ui/frontend`")
    exchanges = tmp_path / "bad.json"
    exchanges.write_text(json.dumps({"exchanges": [{"sse": bad + "data: [DONE]\n\n", "continues": False}]}))
    completed = subprocess.run(["node", str(FRONTEND / "test" / "protocol.mjs"), str(exchanges)], cwd=FRONTEND,
                               capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 1, completed.stdout
    result = json.loads(completed.stdout)
    assert result["rejected"] or result["errors"]


def test_a_continuation_is_applied_once(tmp_path: Path, asgi_client: Any) -> None:
    """Replaying the same answers (a second tab, a retried request) finds no paused turn."""
    app = create_chat_app(scenario_agent(), store=SqliteChatStore(tmp_path / "chats.sqlite"),
                          bind=lambda request, chat_id: SessionBinding(sandbox=LocalSandbox(tmp_path)))

    async def main() -> None:
        async with asgi_client(app) as client:
            chat = Chat(client)
            first = await chat.post(user_message("Do the work"))
            answers = answers_message(first, approve={"bash": True, "record": True})
            await chat.post(answers)
            replay = await client.post("/api/chat", json={"id": chat.chat_id, "trigger": "submit-message",
                                                          "messages": [user_message("Do the work"), answers]})
            assert replay.status_code == 409, replay.text

    anyio.run(main)


def test_sqlite_take_removes_the_record(tmp_path: Path) -> None:
    from harness_ui import ChatRecord

    async def main() -> None:
        store = SqliteChatStore(tmp_path / "db" / "chats.sqlite")
        await store.put("c", ChatRecord("suspended", {"version": 1}, "m1"))
        other = SqliteChatStore(tmp_path / "db" / "chats.sqlite")   # another worker
        taken = await other.take("c")
        assert taken is not None and taken.state == {"version": 1} and taken.message_id == "m1"
        assert await store.take("c") is None

    anyio.run(main)


def test_tool_context_is_bound_per_request_and_never_stored(tmp_path: Path, asgi_client: Any) -> None:
    """The app's ``bind`` hook gives each request its tool context (here from a header);
    a continuation gets the context of the request that continues it, and the stored
    state holds none of it."""
    import pydantic

    class Account(pydantic.BaseModel):
        user_id: str

    whoami = define_harness_tool(name="whoami", description="The signed-in user.", input={"type": "object"},
                                 context_schema=Account, execute=lambda input, ctx: f"user {ctx.context.user_id}")
    runtime = ScriptedAdapter([[[CallHost("whoami", {})], [EchoResults("Saw:")]]])
    agent = runtime.agent(tools=[whoami], tool_approval={"whoami": "user-approval"},
                          prepare_call=lambda call: {"whoami": {"user_id": call.options["user"]}})
    store = SqliteChatStore(tmp_path / "chats.sqlite")
    app = create_chat_app(agent, store=store, bind=lambda request, chat_id: SessionBinding(
        options={"user": request.headers["x-user"]}))

    async def main() -> None:
        async with asgi_client(app) as client:
            question = user_message("Who am I?")
            first = await client.post("/api/chat", headers={"x-user": "ada-secret-id"},
                                      json={"id": "c", "messages": [question]})
            import sqlite3

            with sqlite3.connect(tmp_path / "chats.sqlite") as db:
                (kind, state), = db.execute("SELECT kind, state FROM harness_chats WHERE chat_id = 'c'").fetchall()
            assert kind == "suspended" and "whoami" in state and "ada-secret-id" not in state
            answers = answers_message(parse_sse(first.text), approve={"whoami": True})
            second = await client.post("/api/chat", headers={"x-user": "grace"},
                                       json={"id": "c", "messages": [question, answers]})
            text = "".join(c["delta"] for c in parse_sse(second.text) if isinstance(c, dict) and c["type"] == "text-delta")
            assert text == "Saw: whoami: user grace"

    anyio.run(main)


class BrokenStore:
    """A plugged-in store whose writes fail (a full disk, a lost database)."""

    def __init__(self) -> None:
        self.records: dict[str, Any] = {}

    async def take(self, chat_id: str) -> Any:
        return self.records.pop(chat_id, None)

    async def put(self, chat_id: str, record: Any) -> None:
        raise OSError("disk full at /var/lib/secret-path")


def test_a_store_that_fails_ends_the_stream_with_a_masked_error(asgi_client: Any) -> None:
    from harness_ui import ChatStore

    store = BrokenStore()
    assert isinstance(store, ChatStore)
    reports: list[ErrorReport] = []
    runtime = ScriptedAdapter([[[Say("Hello.")]]])
    app = create_chat_app(runtime.agent(), store=store, on_error=reports.append)

    async def main() -> None:
        async with asgi_client(app) as client:
            response = await client.post("/api/chat", json={"id": "c", "messages": [user_message("hi")]})
            chunks = parse_sse(response.text)
            assert types(chunks)[-3:] == ["finish", "error", "[DONE]"]
            assert "secret-path" not in chunks[-2]["errorText"]

    anyio.run(main)
    (report,) = reports
    assert isinstance(report.exception, OSError) and "secret-path" in report.message
