"""The suspended-turn states the resumers build from a runtime's persisted session (no
runtime runs here: the session files are written by the test in the runtimes' formats)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_dbos import INTERRUPTED
from harness_dbos.claude_code_resume import NOT_STARTED, ClaudeCodeResume
from harness_dbos.codex_resume import CodexResume
from harness_dbos.pi_resume import PiResume

from harness_core import HarnessAgent, ToolOutput, define_harness_tool

RECORD = define_harness_tool(name="record", description="Record.", input={"type": "object"},
                             execute=lambda input, ctx: "recorded")


def _lines(path: Path, entries: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries) + '{"cut short', encoding="utf-8")


def _check(built, *, interrupted: str, recorded: str, not_started: str, approval_call: str) -> None:
    assert built is not None
    state, answers = built
    assert state["state"] == "awaiting-approval"
    assert set(state["pending_tool_results"]) == {interrupted, recorded, not_started}
    assert [a["approval_id"] for a in state["pending_approvals"].values()] == ["approval-1"]
    by_call = {a["tool_call_id"]: a["output"] for a in answers}
    assert by_call == {recorded: ToolOutput("recorded one"), interrupted: ToolOutput(INTERRUPTED, is_error=True),
                       not_started: ToolOutput(NOT_STARTED, is_error=True)}
    assert approval_call not in by_call  # the approval's answer comes from the workflow's message


PAUSE = {"pending_approvals": {"approval-1": {"approval_id": "approval-1", "kind": "host", "tool_call_id": "c4",
                                              "tool_name": "record", "input": {"text": "4"}, "native_tool_name": None,
                                              "provider_metadata": {}}}, "pending_tool_calls": {}}


def test_claude_code_open_calls_become_the_state(tmp_path: Path) -> None:
    from harness_claude_code import claude_code

    config = tmp_path / "claude"
    resumer = ClaudeCodeResume(HarnessAgent(harness=claude_code(config_dir=config), tools=[RECORD]))
    use = [{"type": "tool_use", "id": f"c{n}", "name": "mcp__harness__record", "input": {"text": str(n)}}
           for n in range(5)] + [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "ls"}}]
    _lines(config / "projects" / "-ws" / "cs.jsonl", [
        {"type": "user", "message": {"role": "user", "content": "record notes"}},
        {"type": "assistant", "message": {"role": "assistant", "content": use}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c0"}]}},
    ])
    runtime = {"claude_session_id": "cs", "cwd": "/ws"}
    assert resumer.holds_prompt(runtime, "record notes")
    built = resumer.continue_state(session_id="s", runtime=runtime, pause=PAUSE,
                                   outcomes={"c2": ToolOutput("recorded one")}, started={"c1", "c2"})
    _check(built, interrupted="c1", recorded="c2", not_started="c3", approval_call="c4")
    state, _ = built
    assert set(state["adapter"]["calls"]) == {"c1", "c2", "c3", "c4"}  # c0 answered, the Bash left to Claude Code
    assert resumer.continue_state(session_id="s", runtime={"claude_session_id": "other", "cwd": "/ws"}, pause=None,
                                  outcomes={}, started=set()) is None


def test_codex_open_calls_become_the_state(tmp_path: Path) -> None:
    from harness_codex import codex

    resumer = CodexResume(HarnessAgent(harness=codex(codex_home=tmp_path / ".codex"), tools=[RECORD]))
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>"}]},
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "record notes"}]}]
    items += [{"type": "function_call", "call_id": f"c{n}", "name": "record", "arguments": json.dumps({"text": str(n)})}
              for n in range(5)]
    items += [{"type": "function_call", "call_id": "b1", "name": "exec_command", "arguments": "{}"},
              {"type": "function_call_output", "call_id": "c0", "output": "done"}]
    _lines(tmp_path / ".codex" / "sessions" / "2026" / "rollout-x-th.jsonl",
           [{"type": "response_item", "payload": item} for item in items])
    runtime = {"thread_id": "th", "home": str(tmp_path), "codex_home": str(tmp_path / ".codex")}
    assert resumer.holds_prompt(runtime, "record notes")
    built = resumer.continue_state(session_id="s", runtime=runtime, pause=PAUSE,
                                   outcomes={"c2": ToolOutput("recorded one")}, started={"c1", "c2"})
    _check(built, interrupted="c1", recorded="c2", not_started="c3", approval_call="c4")
    assert set(built[0]["adapter"]["pending"]["tools"]) == {"c1", "c2", "c3", "c4"}


def test_pi_open_calls_become_the_state(tmp_path: Path) -> None:
    from harness_pi import pi

    resumer = PiResume(HarnessAgent(harness=pi(model="m", base_url="http://127.0.0.1:9/v1"), tools=[RECORD]))
    calls = [{"type": "toolCall", "id": f"c{n}", "name": "record", "arguments": {"text": str(n)}} for n in range(5)]
    _lines(tmp_path / "sessions" / "session.jsonl", [
        {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "record notes"}]}},
        {"type": "message", "message": {"role": "assistant", "content": [
            *calls, {"type": "toolCall", "id": "b1", "name": "bash", "arguments": {}}]}},
        {"type": "message", "message": {"role": "toolResult", "toolCallId": "c0"}},
    ])
    runtime = {"temp_dir": str(tmp_path), "cwd": "/ws"}
    assert resumer.holds_prompt(runtime, "record notes") and not resumer.holds_prompt(runtime, "other")
    built = resumer.continue_state(session_id="s", runtime=runtime, pause=PAUSE,
                                   outcomes={"c2": ToolOutput("recorded one")}, started={"c1", "c2"})
    _check(built, interrupted="c1", recorded="c2", not_started="c3", approval_call="c4")
    assert set(built[0]["adapter"]["calls"]) == {"c1", "c2", "c3", "c4"}
    assert built[0]["adapter"]["session_jsonl"].startswith('{"type": "message"')


@pytest.mark.parametrize("runtime", [{"temp_dir": "/nonexistent", "cwd": "/ws"}])
def test_a_missing_session_file_gives_no_state(runtime: dict) -> None:
    from harness_pi import pi

    resumer = PiResume(HarnessAgent(harness=pi(model="m", base_url="http://127.0.0.1:9/v1")))
    assert resumer.continue_state(session_id="s", runtime=runtime, pause=None, outcomes={}, started=set()) is None
    assert not resumer.holds_prompt(runtime, "anything")
