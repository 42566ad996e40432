"""The adapter through HarnessAgent on real pi: parts, built-ins, approvals, filtering, host tools."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    ApprovalResponse,
    LocalSandbox,
    ReasoningDeltaPart,
    ToolApprovalRequestPart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    define_harness_tool,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec, Usage

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]


def _of(parts: list[Any], kind: type) -> list[Any]:
    return [p for p in parts if isinstance(p, kind)]


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "anthropic-messages"])
async def test_text_reasoning_and_usage(pi_agent: PiAgentFactory, workspace: Path, api: str) -> None:
    script = [ModelTurn("Hello from pi.", reasoning="plan it", usage=Usage(input_tokens=40, output_tokens=7))]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, api=api, pi_settings={"reasoning": True, "thinking": "low"})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Say hello")
    assert result.finish_reason == "stop", result.error
    assert result.text == "Hello from pi."
    assert "plan it" in "".join(p.text for p in _of(result.parts, ReasoningDeltaPart))
    assert result.usage.output_tokens == 7 and (result.usage.input_tokens or 0) >= 40


async def test_native_find_is_glob_and_grep_runs(pi_agent: PiAgentFactory, workspace: Path) -> None:
    (workspace / "a.py").write_text("print('needle')\n")
    script = [ModelTurn(tool_calls=[ToolCallSpec("find", {"pattern": "*.py"}, id="f1"),
                                    ToolCallSpec("grep", {"pattern": "needle"}, id="g1")]), "Found."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Find python files")
        offered = server.offered_tools()
    assert {"read", "bash", "edit", "write", "grep", "find", "ls"} <= set(offered)
    (call,) = [p for p in _of(result.parts, ToolCallPart) if p.tool_call_id == "f1"]
    assert call.tool_name == "glob" and call.provider_executed
    assert call.provider_metadata == {"pi": {"nativeToolName": "find"}}
    # pi's find needs fd >= 8.7 on PATH (it cannot download it offline): a result or an error.
    finals = [p for p in [*_of(result.parts, ToolResultPart), *_of(result.parts, ToolErrorPart)]
              if p.tool_call_id == "f1"]
    assert [(p.tool_name, p.provider_metadata) for p in finals] == [("glob", {"pi": {"nativeToolName": "find"}})]
    if shutil.which("rg") is not None:
        (grep,) = [p for p in _of(result.parts, ToolResultPart) if p.tool_call_id == "g1"]
        assert grep.tool_name == "grep" and "a.py" in str(grep.output) and grep.provider_metadata is None


async def test_allow_reads_asks_for_bash_and_a_denial_reason_reaches_the_model(
        pi_agent: PiAgentFactory, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("hello notes\n")
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("read", {"path": "notes.txt"}, id="r1")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch made.txt"}, id="b1")]),
        "Finished.",
    ]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="Read then touch")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "bash" and request.tool_call.tool_call_id == "b1"
            read_results = [p for p in _of(first.parts, ToolResultPart) if p.tool_call_id == "r1"]
            assert read_results and "hello notes" in str(read_results[0].output)
            second = await agent.continue_generate(session=session, approval_responses=[
                ApprovalResponse(approval_id=request.approval_id, approved=False, reason="no shell in review")])
        requests = server.model_requests
        violations = list(session.contract_violations)
    assert violations == []
    assert second.finish_reason == "stop", second.error
    assert not (workspace / "made.txt").exists()
    (denied,) = _of(second.parts, ToolOutputDeniedPart)
    assert denied.tool_call_id == "b1" and denied.reason == "no shell in review"
    assert not [p for p in _of(second.parts, ToolErrorPart) if p.tool_call_id == "b1"]
    assert "no shell in review" in (requests[-1].last_tool_result or "")


async def test_allow_edits_runs_write_and_asks_for_bash(pi_agent: PiAgentFactory, workspace: Path) -> None:
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("write", {"path": "new.txt", "content": "x"}, id="w1")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo ran > ran.txt"}, id="b2")]),
        "Done.",
    ]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-edits")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="Write then run")
            assert (workspace / "new.txt").read_text() == "x"
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            approval_parts = _of(first.parts, ToolApprovalRequestPart)
            assert [p.tool_call.tool_call_id for p in approval_parts] == ["b2"]
            second = await agent.continue_generate(session=session, approval_responses=[
                ApprovalResponse(approval_id=request.approval_id, approved=True)])
            violations = list(session.contract_violations)
    assert violations == []
    assert second.finish_reason == "stop", second.error
    assert (workspace / "ran.txt").read_text().strip() == "ran"
    assert [p.tool_call_id for p in _of(second.parts, ToolResultPart)] == ["b2"]


async def test_inactive_built_ins_are_not_offered(pi_agent: PiAgentFactory, workspace: Path) -> None:
    with ScriptedModelServer(["Nothing to do."]) as server:
        agent = pi_agent(server, inactive_tools=["bash", "glob"])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Hi")
        offered = set(server.offered_tools())
    assert result.finish_reason == "stop", result.error
    assert "bash" not in offered and "find" not in offered
    assert {"read", "write", "edit", "grep", "ls"} <= offered


async def test_active_tools_allowlist_is_native(pi_agent: PiAgentFactory, workspace: Path) -> None:
    echo = define_harness_tool(name="echo_back", description="Echo text.", read_only=True,
                               input={"type": "object", "properties": {"text": {"type": "string"}}},
                               execute=lambda input, ctx: input["text"])
    with ScriptedModelServer(["ok"]) as server:
        agent = pi_agent(server, tools=[echo], active_tools=["read", "echo_back"])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            await agent.generate(session=session, prompt="Hi")
        offered = set(server.offered_tools())
    assert offered == {"read", "echo_back"}


async def test_host_tool_error_reaches_the_model(pi_agent: PiAgentFactory, workspace: Path) -> None:
    def explode(input: Any, ctx: Any) -> str:
        raise RuntimeError("the tool broke")

    broken = define_harness_tool(name="broken", description="Always fails.", read_only=True,
                                 input={"type": "object", "properties": {}}, execute=explode)
    script = [ModelTurn(tool_calls=[ToolCallSpec("broken", {}, id="h1")]), "Saw it."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, tools=[broken])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Call it")
        last = server.model_requests[-1]
    assert result.finish_reason == "stop", result.error
    assert _of(result.parts, ToolErrorPart)
    assert "the tool broke" in (last.last_tool_result or "")


EXTENSION = """
export default function (pi: any) {
  pi.registerTool({
    name: "ext_shout", label: "shout", description: "Upper-case the text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    async execute(_id: string, params: any) {
      return { content: [{ type: "text", text: String(params.text).toUpperCase() }], details: undefined };
    },
  });
}
"""


async def test_other_extension_tools_are_dynamic_provider_executed_calls(
        pi_agent: PiAgentFactory, workspace: Path, tmp_path: Path) -> None:
    extension = tmp_path / "shout.ts"
    extension.write_text(EXTENSION)
    script = [ModelTurn(tool_calls=[ToolCallSpec("ext_shout", {"text": "hey"}, id="e1")]), "Shouted."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, pi_settings={"extensions": [extension]}, active_tools=["read"])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Shout hey")
    assert result.finish_reason == "stop", result.error
    (call,) = [p for p in _of(result.parts, ToolCallPart) if p.tool_call_id == "e1"]
    assert call.tool_name == "ext_shout" and call.provider_executed and call.dynamic
    (done,) = [p for p in _of(result.parts, ToolResultPart) if p.tool_call_id == "e1"]
    assert done.output == "HEY" and done.dynamic


async def test_no_turn_runs_when_the_gate_extension_does_not_load(
        pi_agent: PiAgentFactory, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness_pi._runtime as runtime_module

    monkeypatch.setattr(runtime_module, "extension_source", lambda *a, **k: "export default function (pi) { oops(")
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch ran.txt"})]), "Done."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Run it")
        calls = server.model_calls
    assert result.finish_reason == "error"
    assert result.error is not None and "did not load the harness extension" in result.error
    assert calls == 0 and not (workspace / "ran.txt").exists()


async def test_instructions_reach_pi_and_the_process_is_kept_across_turns(
        pi_agent: PiAgentFactory, workspace: Path) -> None:
    with ScriptedModelServer(["First.", "Second."]) as server:
        agent = pi_agent(server, instructions="Always answer in French.")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            await agent.generate(session=session, prompt="one")
            pid = session.adapter_session.pi_pid
            await agent.generate(session=session, prompt="two")
            same = session.adapter_session.pi_pid == pid
        first, second = server.model_requests[0], server.model_requests[-1]
    assert "Always answer in French." in first.system and "Always answer in French." in second.system
    assert same and pid is not None
    assert "one" in [m.text for m in second.messages]


async def test_a_running_command_streams_preliminary_results(pi_agent: PiAgentFactory, workspace: Path) -> None:
    command = "echo first-line; sleep 0.5; echo second-line"
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="s1")]), "Done."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Run it")
            violations = list(session.contract_violations)
    results = [p for p in _of(result.parts, ToolResultPart) if p.tool_call_id == "s1"]
    preliminary = [p for p in results if p.preliminary]
    assert preliminary and "first-line" in str(preliminary[0].output)
    assert [p for p in results if not p.preliminary][-1].output.count("second-line") == 1
    assert results[-1] is not preliminary[-1] and violations == []


@pytest.mark.parametrize("api", ["openai-responses", "anthropic-messages"])
async def test_a_host_tool_image_reaches_the_model(pi_agent: PiAgentFactory, workspace: Path, api: str) -> None:
    from harness_core import ToolResultPart
    from harness_core.testing import PNG_1X1, ImageView

    screenshot = define_harness_tool(
        name="screenshot", description="Take a screenshot.", input={"type": "object", "properties": {}},
        execute=lambda input, ctx: {"content": [
            {"type": "text", "text": "the screen"}, {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]})
    script = [ModelTurn(tool_calls=[ToolCallSpec("screenshot", {}, id="i1")]), "Saw it."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, api=api, tools=[screenshot])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Look")
        [seen] = [r for r in server.model_requests[-1].tool_results if r.call_id.startswith("i1")]
    assert result.finish_reason == "stop", result.error
    assert seen.images == (ImageView("image/png", PNG_1X1),)
    assert "the screen" in seen.text and "[audio: audio/wav, 6 bytes]" in seen.text
    part = _of(result.parts, ToolResultPart)[0]
    assert part.warnings is not None and len(part.warnings) == 1 and "audio" in part.warnings[0]
