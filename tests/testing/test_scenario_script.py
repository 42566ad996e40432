"""``scenario_script``: a conformance scenario played by a scripted model server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from harness_core.testing import (
    Message,
    ModelRequest,
    OfferedTool,
    ScenarioFailure,
    ScriptedModelServer,
    ToolResultView,
    find_prompt_position,
    received_tool_results,
    scenario_script,
)
from harness_core.testing.conformance import (
    ModelResponse,
    Scenario,
    ScenarioCall,
    ScenarioPrompt,
    builtin,
    host,
    say,
)
from harness_core.testing.conformance import scenario_script as reexported

BASH: Any = {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {}}}}
HOST: Any = {"name": "mcp__harness__conformance_add", "input_schema": {"type": "object"}}


def _request(*messages: Message, tools: tuple[str, ...] = ("bash",)) -> ModelRequest:
    return ModelRequest(
        format="anthropic",
        model="m",
        stream=False,
        system="",
        messages=messages,
        tools=tuple(OfferedTool(name=name) for name in tools),
        index=0,
        body={},
        has_tools=bool(tools),
    )


def _user(text: str, *results: str) -> Message:
    views = tuple(ToolResultView(call_id=f"c{i}", text=r) for i, r in enumerate(results))
    return Message(role="user", text=text, tool_results=views)


def _assistant(text: str = "") -> Message:
    return Message(role="assistant", text=text)


def _tool(*results: str) -> Message:
    return Message(
        role="tool", tool_results=tuple(ToolResultView(call_id=f"t{i}", text=r) for i, r in enumerate(results))
    )


def _scenario(*prompts: str) -> Scenario:
    return Scenario("t", tuple(ScenarioPrompt(p, (say(f"answer to {p}"),)) for p in prompts))


def _post(server: ScriptedModelServer, messages: list[Any], tools: list[Any]) -> httpx.Response:
    body = {"model": "m", "max_tokens": 100, "messages": messages, "tools": tools}
    return httpx.post(server.base_url + "/v1/messages", json=body)


def _answer(response: httpx.Response) -> tuple[str, list[tuple[str, Any, str]]]:
    assert response.status_code == 200, response.text
    content = response.json()["content"]
    text = "".join(block["text"] for block in content if block["type"] == "text")
    calls = [(b["name"], b["input"], b["id"]) for b in content if b["type"] == "tool_use"]
    return text, calls


# -- find_prompt_position ---------------------------------------------------------------


def test_the_newest_user_message_carrying_a_prompt_decides() -> None:
    scenario = _scenario("first", "second")
    assert find_prompt_position(scenario, _request(_user("first"))) == (0, 0)
    history = (_user("first"), _assistant(), _user("second"), _assistant(), _tool("r"))
    assert find_prompt_position(scenario, _request(*history)) == (1, 1)
    # a user message carrying no prompt (a runtime's own note) is skipped
    assert find_prompt_position(scenario, _request(_user("first"), _assistant(), _user("note"))) == (0, 1)
    assert find_prompt_position(scenario, _request(_user("unrelated"))) is None
    assert find_prompt_position(scenario, _request()) is None


def test_a_wrapped_prompt_is_found_and_an_exact_one_wins() -> None:
    scenario = _scenario("go on", "go")
    wrapped = _user("<system-reminder>be brief</system-reminder>\ngo")
    assert find_prompt_position(scenario, _request(wrapped)) == (1, 0)
    # "go on" contains both prompts; being exactly the first one, it is the first one
    assert find_prompt_position(scenario, _request(_user("go on"))) == (0, 0)
    # not exact: the latest prompt contained wins
    assert find_prompt_position(scenario, _request(_user("please go on"))) == (1, 0)
    # a repeated prompt picks its first occurrence
    assert find_prompt_position(_scenario("same", "same"), _request(_user("same"))) == (0, 0)


# -- received_tool_results ---------------------------------------------------------------


def test_received_results_are_those_after_the_newest_assistant_message() -> None:
    assert received_tool_results(_request(_user("p"))) == []
    old = (_user("p"), _assistant(), _tool("old"), _assistant("said"))
    assert received_tool_results(_request(*old)) == []
    assert received_tool_results(_request(*old[:3])) == ["old"]
    new = (*old, _tool("a", "b"), _user("reminder", "c"))
    assert received_tool_results(_request(*new)) == ["a", "b", "c"]


# -- the script, through a real server ---------------------------------------------------------


def test_responses_follow_the_prompt_and_fall_back_outside_it() -> None:
    scenario = Scenario("t", (
        ScenarioPrompt("Run", (builtin("bash", "call-1", command="ls"), say("listed:", echo=True))),
        ScenarioPrompt("Again", (say("again"),)),
    ))
    script = scenario_script(scenario, side_answer="A title", final_text="All done.")
    assert reexported is scenario_script
    with ScriptedModelServer(script) as server:
        first = _post(server, [{"role": "user", "content": "Run"}], [BASH])
        text, calls = _answer(first)
        assert (text, calls) == ("", [("Bash", {"command": "ls"}, "call-1")])
        results = [
            {"role": "user", "content": "Run"},
            {"role": "assistant", "content": first.json()["content"]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call-1", "content": "a.txt b.txt"},
                {"type": "text", "text": "<system-reminder>note</system-reminder>"},
            ]},
        ]
        assert _answer(_post(server, results, [BASH])) == ("listed: a.txt b.txt", [])
        finished = [*results, {"role": "assistant", "content": "listed"}, {"role": "user", "content": "more"}]
        assert _answer(_post(server, finished, [BASH])) == ("All done.", [])
        assert _answer(_post(server, [{"role": "user", "content": "Again"}], [BASH])) == ("again", [])
        assert _answer(_post(server, [{"role": "user", "content": "unknown"}], [BASH])) == ("All done.", [])
        assert _answer(_post(server, [{"role": "user", "content": "Run"}], [])) == ("A title", [])
    assert server.errors == []


def test_a_fail_response_is_a_500_recorded_as_scenario_failure() -> None:
    scenario = Scenario("t", (ScenarioPrompt("Fail", (ModelResponse(fail="model is down"),)),))
    with ScriptedModelServer(scenario_script(scenario)) as server:
        response = _post(server, [{"role": "user", "content": "Fail"}], [BASH])
    assert response.status_code == 500
    assert "model is down" in response.json()["error"]["message"]
    [error] = server.errors
    assert isinstance(error, ScenarioFailure) and isinstance(error, RuntimeError)
    assert str(error) == "model is down"


def test_calls_to_tools_not_offered_are_dropped() -> None:
    both = ModelResponse(text=None, calls=(
        ScenarioCall("bash", {"command": "ls"}, "b-1", builtin=True),
        ScenarioCall("conformance_add", {"a": 1, "b": 2}, "h-1"),
    ))
    scenario = Scenario("t", (ScenarioPrompt("Go", (both,)),))
    with ScriptedModelServer(scenario_script(scenario)) as server:
        # the host tool is offered under its MCP name, which the default naming does not use
        assert _answer(_post(server, [{"role": "user", "content": "Go"}], [BASH, HOST])) == (
            "", [("Bash", {"command": "ls"}, "b-1")])
        # nothing callable is offered: an empty text answer, no error
        assert _answer(_post(server, [{"role": "user", "content": "Go"}], [HOST])) == ("", [])
    assert server.errors == []


def test_tool_name_hook_names_host_tools_on_the_wire() -> None:
    def mcp_name(call: ScenarioCall) -> str:
        return call.tool if call.builtin else f"mcp__harness__{call.tool}"

    scenario = Scenario("t", (ScenarioPrompt("Go", (
        ModelResponse(text="Adding.", calls=(
            ScenarioCall("conformance_add", {"a": 1, "b": 2}, "h-1"),
            ScenarioCall("conformance_record", {"text": "x"}, "h-2"),  # not offered: dropped
            ScenarioCall("bash", {"command": "ls"}, "b-1", builtin=True),
        )),
    )),))
    with ScriptedModelServer(scenario_script(scenario, tool_name=mcp_name)) as server:
        answer = _answer(_post(server, [{"role": "user", "content": "Go"}], [HOST, BASH]))
    assert answer == ("Adding.", [
        ("mcp__harness__conformance_add", {"a": 1, "b": 2}, "h-1"),
        ("Bash", {"command": "ls"}, "b-1"),
    ])


def test_position_and_results_hooks_replace_the_defaults() -> None:
    scenario = Scenario("t", (ScenarioPrompt("ignored", (host("conformance_add", "h-1", a=1, b=2),
                                                         say("got", echo=True))),))
    seen: list[int] = []

    def by_call_count(scenario: Scenario, request: ModelRequest) -> tuple[int, int] | None:
        seen.append(request.index)
        return (0, request.index)

    script = scenario_script(
        scenario,
        tool_name=lambda call: "mcp__harness__" + call.tool,
        prompt_position=by_call_count,
        received_results=lambda request: ["<", request.last_user_text or "", ">"],
    )
    with ScriptedModelServer(script) as server:
        assert _answer(_post(server, [{"role": "user", "content": "x"}], [HOST]))[1] == [
            ("mcp__harness__conformance_add", {"a": 1, "b": 2}, "h-1")]
        assert _answer(_post(server, [{"role": "user", "content": "y"}], [HOST])) == ("got < y >", [])
        assert _answer(_post(server, [{"role": "user", "content": "z"}], [HOST])) == ("Done.", [])
    assert seen == [0, 1, 2]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/responses"])
def test_openai_wires_play_the_same_scenario(path: str) -> None:
    scenario = Scenario("t", (ScenarioPrompt("Run", (builtin("bash", "call-9", command="pwd"),)),))
    tools: Any = {
        "/v1/chat/completions": [{"type": "function", "function": {
            "name": "exec_command", "parameters": {"properties": {"cmd": {}}}}}],
        "/v1/responses": [{"type": "function", "name": "exec_command", "parameters": {"properties": {"cmd": {}}}}],
    }[path]
    body = {"model": "m", "messages": [{"role": "user", "content": "Run"}], "input": "Run", "tools": tools}
    with ScriptedModelServer(scenario_script(scenario)) as server:
        reply = httpx.post(server.base_url + path, json=body).json()
    if path == "/v1/responses":
        [call] = [item for item in reply["output"] if item["type"] == "function_call"]
        assert (call["name"], call["arguments"], call["call_id"]) == ("exec_command", '{"cmd":"pwd"}', "call-9")
    else:
        [call] = reply["choices"][0]["message"]["tool_calls"]
        assert (call["function"]["name"], call["function"]["arguments"], call["id"]) == (
            "exec_command", '{"cmd":"pwd"}', "call-9")
