"""The model loop: parallel read-only calls, order, deadlines, on_error, host calls, approvals."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_builtin.conversation import ToolResultsMessage

from harness_core import (
    BuiltinApprovalRequest,
    BuiltinFilter,
    BuiltinFilterMode,
    HostToolCall,
    HostToolSpec,
    ToolOutput,
    TurnEnd,
    define_harness_tool,
)
from harness_core.adapter import AwaitingAnswers
from harness_core.parts.models import (
    FinishStepPart,
    StartStepPart,
    TextDeltaPart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)
from harness_core.testing import ModelTurn, ToolCallSpec


def of_type(events: list[object], kind: type) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]

pytestmark = pytest.mark.anyio


class Recorder:
    """Tools that sleep and record when they ran."""

    def __init__(self) -> None:
        self.spans: dict[str, tuple[float, float]] = {}
        self.active = 0
        self.peak = 0

    def tool(self, name: str, *, read_only: bool) -> Any:
        async def execute(value: dict[str, Any], context: Any) -> str:
            started = time.monotonic()
            self.active += 1
            self.peak = max(self.peak, self.active)
            await anyio.sleep(value["seconds"])
            self.active -= 1
            self.spans[value["label"]] = (started, time.monotonic())
            return f"{value['label']} done"

        return define_harness_tool(
            name=name, description=f"sleep ({name})", read_only=read_only, execute=execute,
            input={"type": "object", "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}},
                   "required": ["seconds", "label"]},
        )


def calls(*specs: tuple[str, float, str]) -> ModelTurn:
    return ModelTurn(tool_calls=[ToolCallSpec(name, {"seconds": s, "label": label}) for name, s, label in specs])


async def test_text_only_turn(harness) -> None:
    events = await harness.run(["Hello there."])
    assert [type(e).__name__ for e in events] == [
        "StartStepPart", "TextStartPart", "TextDeltaPart", "TextEndPart", "FinishStepPart", "TurnEnd",
    ]
    assert of_type(events, TextDeltaPart)[0].text == "Hello there."
    end = events[-1]
    assert end.finish_reason == "stop" and end.usage.total_tokens


async def test_read_only_calls_run_in_parallel_and_results_keep_call_order(harness) -> None:
    rec = Recorder()
    script = [calls(("ro", 0.4, "a"), ("ro", 0.1, "b"), ("ro", 0.2, "c")), "ok"]
    events = await harness.run(script, extra_tools={"ro": rec.tool("ro", read_only=True)})
    assert rec.peak == 3
    results = of_type(events, ToolResultPart)
    assert [r.output for r in results] == ["a done", "b done", "c done"]
    # b finished first, yet the model receives the results in call order.
    assert rec.spans["b"][1] < rec.spans["a"][1]
    sent = harness.client.requests[1].messages[-1]
    assert isinstance(sent, ToolResultsMessage)
    assert [r.content for r in sent.results] == ["a done", "b done", "c done"]


async def test_concurrency_limit(harness) -> None:
    rec = Recorder()
    script = [calls(*[("ro", 0.1, str(i)) for i in range(6)]), "ok"]
    await harness.run(script, extra_tools={"ro": rec.tool("ro", read_only=True)}, tool_concurrency=2)
    assert rec.peak == 2


async def test_other_calls_run_one_at_a_time_between_read_only_groups(harness) -> None:
    rec = Recorder()
    tools = {"ro": rec.tool("ro", read_only=True), "rw": rec.tool("rw", read_only=False)}
    script = [calls(("ro", 0.2, "r1"), ("ro", 0.2, "r2"), ("rw", 0.1, "w1"), ("rw", 0.1, "w2"), ("ro", 0.1, "r3")), "ok"]
    events = await harness.run(script, extra_tools=tools)
    spans = rec.spans
    assert spans["r1"][0] < spans["r2"][1] and spans["r2"][0] < spans["r1"][1]  # r1 and r2 overlapped
    assert spans["w1"][0] >= max(spans["r1"][1], spans["r2"][1])
    assert spans["w2"][0] >= spans["w1"][1]
    assert spans["r3"][0] >= spans["w2"][1]
    assert [r.output for r in of_type(events, ToolResultPart)] == ["r1 done", "r2 done", "w1 done", "w2 done", "r3 done"]


async def test_deadline_turns_into_an_error_result(harness) -> None:
    rec = Recorder()
    script = [calls(("ro", 10, "slow"), ("ro", 0.01, "fast")), "ok"]
    started = time.monotonic()
    events = await harness.run(script, extra_tools={"ro": rec.tool("ro", read_only=True)}, call_deadline=0.3)
    assert time.monotonic() - started < 5
    error = of_type(events, ToolErrorPart)[0]
    assert error.tool_call_id == "call_t0_0"
    assert "did not finish within its 0.3 s deadline" in error.error
    assert of_type(events, ToolResultPart)[0].output == "fast done"
    assert events[-1].finish_reason == "stop"


def _boom(value: Any, context: Any) -> str:
    raise RuntimeError("boom")


BOOM = define_harness_tool(name="boom", description="fails", input={"type": "object", "properties": {}},
                           read_only=True, execute=_boom)


async def test_on_error_return_to_model(harness) -> None:
    events = await harness.run([ModelTurn(tool_calls=[ToolCallSpec("boom")]), "recovered"], extra_tools={"boom": BOOM})
    assert of_type(events, ToolErrorPart)[0].error == "Error: RuntimeError: boom"
    assert events[-1].finish_reason == "stop"


async def test_on_error_fail_ends_the_turn(harness) -> None:
    events = await harness.run([ModelTurn(tool_calls=[ToolCallSpec("boom")]), "never"], extra_tools={"boom": BOOM},
                               on_error="fail")
    end = events[-1]
    assert end.finish_reason == "error" and end.error_type == "tool-error"
    assert "boom" in end.error
    assert len(harness.client.requests) == 1


async def test_expected_tool_errors_never_fail_the_turn(harness) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": "missing.txt"})]), "ok"]
    events = await harness.run(script, on_error="fail")
    assert "does not exist" in of_type(events, ToolErrorPart)[0].error
    assert events[-1].finish_reason == "stop"


async def test_host_tool_round_trip(harness) -> None:
    spec = HostToolSpec("weather", "Weather", {"type": "object", "properties": {"city": {"type": "string"}},
                                                "required": ["city"]}, read_only=True)
    script = [ModelTurn(tool_calls=[ToolCallSpec("weather", {"city": "Paris"}), ToolCallSpec("ls", {})]), "Sunny."]
    events = await harness.run(script, start={"host_tools": [spec]},
                               host=lambda call: ToolOutput(f"12 C in {call.call.input['city']}"))
    host_calls = of_type(events, HostToolCall)
    assert [c.call.tool_name for c in host_calls] == ["weather"]
    assert host_calls[0].call.provider_executed is False
    # The built-in ls is reported by the harness; the host call is the agent's to report.
    assert [p.tool_name for p in of_type(events, ToolCallPart)] == ["ls"]
    sent = harness.client.requests[1].messages[-1]
    assert sent.results[0].content == "12 C in Paris"
    assert [t.name for t in harness.client.requests[0].tools][-1] == "weather"


async def test_host_tool_named_like_a_builtin_is_refused(harness) -> None:
    from harness_core.errors import HarnessConfigurationError

    with pytest.raises(HarnessConfigurationError, match="'bash'"):
        await harness.start(["x"], start={"host_tools": [HostToolSpec("bash", "mine", {"type": "object"})]})


async def test_builtin_approvals_and_denial_reason_reaches_the_model(harness, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": "a.txt"}),
                                    ToolCallSpec("bash", {"command": "touch made.txt"})]), "ok"]
    (workspace / "a.txt").write_text("A")
    seen: list[str] = []

    def approve(request: BuiltinApprovalRequest) -> tuple[bool, str | None]:
        seen.append(request.call.tool_name)
        return (request.call.tool_name == "read", "no shell today")

    events = await harness.run(script, start={"builtin_approvals": True}, approve=approve)
    assert seen == ["read", "bash"]
    kinds = [type(e).__name__ for e in events]
    # Both requests come before anything runs.
    assert kinds.index("ToolResultPart") > max(i for i, k in enumerate(kinds) if k == "BuiltinApprovalRequest")
    # The core announces calls it is asked about and emits their denial; the adapter emits neither.
    assert of_type(events, ToolOutputDeniedPart) == []
    assert [p.tool_call_id for p in of_type(events, ToolCallPart) if p.tool_name in ("read", "bash")] == []
    assert not (workspace / "made.txt").exists()
    results = harness.client.requests[1].messages[-1].results
    assert results[1].content == "Execution denied: no shell today" and results[1].is_error


async def test_native_filtering(harness) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo hi"})]), "ok"]
    events = await harness.run(
        script, start={"builtin_filter": BuiltinFilter(BuiltinFilterMode.INACTIVE, frozenset({"bash", "write"}))}
    )
    offered = [t.name for t in harness.client.requests[0].tools]
    assert "bash" not in offered and "write" not in offered and "read" in offered
    denied = of_type(events, ToolOutputDeniedPart)[0]
    assert denied.tool_name == "bash" and "inactive" in (denied.reason or "")
    assert "Execution refused" in harness.client.requests[1].messages[-1].results[0].content


async def test_allowlist_filter(harness) -> None:
    await harness.run(["ok"], start={"builtin_filter": BuiltinFilter(BuiltinFilterMode.ACTIVE, frozenset({"read"}))})
    assert [t.name for t in harness.client.requests[0].tools] == ["read"]


async def test_awaiting_answers_is_emitted_before_blocking(harness) -> None:
    session = await harness.start([ModelTurn(tool_calls=[ToolCallSpec("ls", {})]), "ok"],
                                  start={"builtin_approvals": True})
    from harness_core import PromptRequest

    turn = await session.prompt(PromptRequest(prompt="go"))
    events = turn.events()
    seen: list[object] = []
    while True:
        event = await events.__anext__()
        seen.append(event)
        if isinstance(event, AwaitingAnswers):
            break
    request = of_type(seen, BuiltinApprovalRequest)[0]
    with pytest.raises(KeyError):
        await turn.submit_approval("nope", True)
    await turn.submit_approval(request.approval_id, True)
    rest = [event async for event in events]
    assert isinstance(rest[-1], TurnEnd)
    assert of_type(rest, ToolResultPart)[0].tool_name == "ls"


async def test_steps_are_balanced(harness) -> None:
    events = await harness.run([ModelTurn(tool_calls=[ToolCallSpec("ls", {})]), "done"])
    assert len(of_type(events, StartStepPart)) == len(of_type(events, FinishStepPart)) == 2


async def test_continue_from_state_then_abort_before_reading(harness) -> None:
    from harness_core import PromptRequest, StartRequest

    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch x"})]), "later"]
    session = await harness.start(script, start={"builtin_approvals": True})
    turn = await session.prompt(PromptRequest(prompt="go"))
    async for event in turn.events():
        if isinstance(event, AwaitingAnswers):
            break
    state = await session.suspend_turn()
    assert state["pending"]["calls"][0]["status"] == "approval"
    from harness_builtin import create_builtin_adapter

    again = await create_builtin_adapter(model=harness.client).start(
        StartRequest(session_id="test-session", sandbox=harness.sandbox, continue_from=state, builtin_approvals=True))
    resumed = await again.resume_turn()
    await resumed.abort()
    # Nothing ran, the call got a result, and the session takes a new prompt.
    assert again.messages[-1].results[0].content == "Not run: the turn was aborted."
    follow = await again.prompt(PromptRequest(prompt="next"))
    events = [event async for event in follow.events()]
    assert events[-1].finish_reason == "stop"
