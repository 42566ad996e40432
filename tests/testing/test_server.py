"""The server itself: routes, recording, redaction, lifecycle, fault plumbing."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import httpx
import pytest

from harness_core.testing import Fault, ModelTurn, ScriptedModelServer, ToolCallSpec
from harness_core.testing.pytest_plugin import ScriptedServerFactory

TOOLS = [{"name": "Bash", "input_schema": {}}]
BODY: dict[str, Any] = {
    "model": "claude-x",
    "messages": [{"role": "user", "content": "hi"}],
    "tools": TOOLS,
}


def test_lifecycle() -> None:
    server = ScriptedModelServer(["hi"])
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    with server:
        url = server.base_url
        assert url == f"http://127.0.0.1:{server.port}"
        assert server.openai_base_url == url + "/v1"
        assert server.port > 0
        assert server.start() is server
    server.stop()  # twice is fine
    with pytest.raises(httpx.ConnectError):
        httpx.head(url, timeout=1)


def test_head_models_and_unknown_routes(
    scripted_model_server: ScriptedServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server = scripted_model_server(["hi"])
    assert httpx.head(server.base_url + "/api/hello").status_code == 200
    assert httpx.head(server.base_url).status_code == 200
    httpx.post(server.base_url + "/v1/messages", json=BODY)
    models = httpx.get(server.openai_base_url + "/models").json()
    assert [m["id"] for m in models["data"]] == ["fake-model", "claude-x"]
    assert httpx.get(server.base_url + "/v1/models/fake-model").status_code == 200
    with caplog.at_level(logging.WARNING, logger="harness_core.testing"):
        missing = httpx.post(server.base_url + "/v1/embeddings", json={"input": "x"})
    assert missing.status_code == 404
    assert "no route for POST /v1/embeddings" in missing.json()["error"]["message"]
    assert "no route for POST /v1/embeddings" in caplog.text
    assert [r.path for r in server.unhandled] == ["/v1/embeddings"]
    assert [r.kind for r in server.requests] == [
        "head",
        "head",
        "anthropic",
        "models",
        "models",
        "unknown",
    ]
    assert server.model_calls == 1


def test_secrets_are_redacted(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"])
    headers = {
        "Authorization": "Bearer sk-1",
        "x-api-key": "sk-2",
        "api-key": "sk-3",
        "Cookie": "a=b",
        "anthropic-version": "2023-06-01",
    }
    httpx.post(server.base_url + "/v1/messages", json=BODY, headers=headers)
    recorded = server.requests[0].headers
    for name in ("authorization", "x-api-key", "api-key", "cookie"):
        assert recorded[name] == "<redacted>"
    assert recorded["anthropic-version"] == "2023-06-01"
    assert "sk-" not in repr(server.requests)


def test_recording_helpers(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("bash", {})]), "done"])
    assert server.last_tool_result() is None
    httpx.post(server.base_url + "/v1/messages", json=BODY)
    follow_up = {
        **BODY,
        "messages": [
            *BODY["messages"],
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "1", "name": "Bash", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "1", "content": "file.txt"}],
            },
        ],
    }
    httpx.post(server.base_url + "/v1/messages", json=follow_up)
    httpx.post(server.base_url + "/v1/messages", json={**BODY, "tools": []})  # a side request
    assert server.model_calls == 3
    assert server.offered_tools() == ["Bash"]  # side requests are skipped
    assert server.offered_tools(0) == ["Bash"]
    assert server.last_tool_result() == "file.txt"
    assert server.requests[1].body["messages"][2]["content"][0]["content"] == "file.txt"
    assert [r.model_call for r in server.requests] == [0, 1, 2]
    assert server.model_requests[2].is_side_request


def test_bad_bodies_and_format_restriction(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"], formats=["responses"])
    assert httpx.post(server.base_url + "/v1/messages", json=BODY).status_code == 404
    bad = httpx.post(server.openai_base_url + "/responses", content=b"not json")
    assert bad.status_code == 400
    assert "not a JSON object" in bad.json()["error"]["message"]
    ok = httpx.post(
        server.openai_base_url + "/responses",
        json={"model": "m", "input": "x", "tools": [{"type": "function", "name": "f"}]},
    )
    assert ok.json()["output"][0]["content"][0]["text"] == "hi"


def test_chunked_request_body(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"])

    def parts() -> Any:
        yield b'{"model": "m", "messages": [], '
        yield b'"tools": [{"name": "Bash"}]}'

    response = httpx.post(server.base_url + "/v1/messages", content=parts())
    assert response.json()["content"][0]["text"] == "hi"


def test_delays(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"], faults=[Fault.slow(0.2, event_delay=0.01)])
    started = time.monotonic()
    httpx.post(server.base_url + "/v1/messages", json={**BODY, "stream": True})
    assert time.monotonic() - started >= 0.2


def test_non_streaming_cut_truncates_the_body(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"], faults=[Fault.cut_stream(0)])
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(server.base_url + "/v1/messages", json=BODY)


def test_inject_and_wait_for_model_calls(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"])
    server.inject(Fault.http_error(503, at=1))
    assert httpx.post(server.base_url + "/v1/messages", json=BODY).status_code == 200
    assert httpx.post(server.base_url + "/v1/messages", json=BODY).status_code == 503

    thread = threading.Thread(
        target=lambda: httpx.post(server.base_url + "/v1/messages", json=BODY)
    )
    thread.start()
    server.wait_for_model_calls(3, timeout=5)
    thread.join()
    with pytest.raises(TimeoutError, match="expected 9 model calls"):
        server.wait_for_model_calls(9, timeout=0.05)


def test_on_request_callback() -> None:
    seen: list[str] = []
    with ScriptedModelServer(["hi"], on_request=lambda record: seen.append(record.kind)) as server:
        httpx.head(server.base_url)
        httpx.post(server.base_url + "/v1/messages", json=BODY)
    assert seen == ["head", "anthropic"]
