"""One turn of the scripted runtime: plays a scripted turn step by step, asks for answers,
runs built-ins for real, suspends to JSON and restores from it."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
import attrs

from harness_core.adapter import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PendingRequest,
    TurnEnd,
)
from harness_core.parts.models import Usage
from harness_core.testing.scripted.actions import (
    Action,
    CallBuiltin,
    CallHost,
    ChangeFile,
    Compact,
    Crash,
    EchoResults,
    Fail,
    Say,
    ScriptedResult,
    Sleep,
    Step,
    StepContext,
    Think,
)
from harness_core.testing.scripted.builtins import kill_group, run_file_tool
from harness_core.testing.scripted.native import (
    STEP_USAGE,
    NativeCompaction,
    NativeFileChange,
    NativeReasoning,
    NativeStepEnd,
    NativeText,
    NativeToolResult,
    NativeToolUse,
)
from harness_core.tools.definition import BuiltinTool, ToolCall
from harness_core.tools.output import ToolOutput, truncate_text

if TYPE_CHECKING:
    from harness_core.testing.scripted.session import ScriptedSession

__all__ = ["ScriptedTurn"]


@attrs.define(kw_only=True)
class _Call:
    kind: Literal["builtin", "host"]
    id: str
    tool: str
    native: str
    input: Any
    approval_id: str | None = None
    state: Literal["asked", "approved", "denied", "refused", "waiting", "answered", "run"] = "run"
    reason: str | None = None
    content: str | None = None
    is_error: bool = False
    fixed_output: str | None = None


class ScriptedTurn:
    """One turn of the scripted runtime (the :class:`~harness_core.adapter.AdapterTurn`)."""

    def __init__(self, session: ScriptedSession, *, turn_index: int, prompt: str, host_tools: tuple[str, ...],
                 compaction: bool = False) -> None:
        self.session = session
        self.adapter = session.adapter
        self.turn_index = turn_index
        self.prompt = prompt
        self.host_tools = host_tools
        self.compaction = compaction
        self.step_index = 0
        self.phase: Literal["start", "waiting"] = "start"
        self.calls: list[_Call] = []
        self.previous: list[ScriptedResult] = []
        self.usage = Usage()
        self.detached = False
        self.aborted = False
        self._answered: anyio.Event | None = None
        self._events: AsyncGenerator[object, None] | None = None
        self._pids: set[int] = set()

    # -- state -------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON state of this turn."""
        return {
            "turn_index": self.turn_index,
            "prompt": self.prompt,
            "host_tools": list(self.host_tools),
            "step_index": self.step_index,
            "phase": self.phase,
            "calls": [attrs.asdict(call) for call in self.calls],
            "previous": [attrs.asdict(result) for result in self.previous],
            "usage": self.usage.model_dump(mode="json"),
        }

    @classmethod
    def restore(cls, session: ScriptedSession, state: Mapping[str, Any]) -> ScriptedTurn:
        """Rebuild a turn from :meth:`snapshot` data."""
        turn = cls(session, turn_index=int(state["turn_index"]), prompt=str(state["prompt"]),
                   host_tools=tuple(state.get("host_tools", ())))
        turn.step_index = int(state["step_index"])
        turn.phase = state["phase"]
        turn.calls = [_Call(**call) for call in state["calls"]]
        turn.previous = [ScriptedResult(**result) for result in state["previous"]]
        turn.usage = Usage.model_validate(state["usage"])
        return turn

    # -- answers -----------------------------------------------------------------------

    def pending_requests(self) -> list[PendingRequest]:
        """What this runtime waits on (the :class:`~harness_core.adapter.PendingRequestsTurn`
        capability): built-in calls asked for approval and host calls awaiting a result."""
        requests: list[PendingRequest] = []
        for call in self.calls:
            if call.state == "asked" and call.approval_id is not None:
                requests.append(PendingRequest(kind="approval", approval_id=call.approval_id, call=ToolCall(
                    tool_call_id=call.id, tool_name=call.native, input=call.input, provider_executed=True)))
            elif call.kind == "host" and call.state == "waiting":
                requests.append(PendingRequest(kind="tool-result", call=ToolCall(
                    tool_call_id=call.id, tool_name=call.tool, input=call.input)))
        return requests

    def _call_by(self, key: str, value: str) -> _Call:
        for call in self.calls:
            if getattr(call, key) == value:
                return call
        raise KeyError(f"scripted turn {self.turn_index}: no pending call with {key} {value!r}")

    def _check_answered(self) -> None:
        if self._answered is not None and all(c.state not in ("asked", "waiting") for c in self.calls):
            self._answered.set()

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a host call (``KeyError`` for an unknown or already answered id)."""
        self.adapter.tool_results.setdefault(tool_call_id, []).append(output)
        call = self._call_by("id", tool_call_id)
        if call.kind != "host" or call.state != "waiting":
            raise KeyError(f"scripted turn {self.turn_index}: call {tool_call_id!r} is not waiting for a result")
        call.state = "answered"
        call.content, call.is_error = output.content, output.is_error
        self._check_answered()

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a built-in approval request (``KeyError`` for an unknown id)."""
        self.adapter.approvals.setdefault(approval_id, []).append((approved, reason))
        call = self._call_by("approval_id", approval_id)
        if call.state != "asked":
            raise KeyError(f"scripted turn {self.turn_index}: approval {approval_id!r} was already answered")
        call.state = "approved" if approved else "denied"
        call.reason = reason
        self._check_answered()

    async def abort(self) -> None:
        """Stop now: kill running commands; the session takes the next prompt."""
        if not self.aborted:
            self.aborted = True
            self.adapter.aborted.append(self.turn_index)
        for pid in list(self._pids):
            kill_group(pid)
        if self._events is not None:
            await self._events.aclose()

    # -- events ------------------------------------------------------------------------

    def events(self) -> AsyncGenerator[object, None]:
        """The turn's events (created once)."""
        if self._events is None:
            self._events = self._run()
        return self._events

    def _steps(self) -> Sequence[Step] | None:
        if 0 <= self.turn_index < len(self.adapter.script):
            return self.adapter.script[self.turn_index]
        return None

    async def _run(self) -> AsyncGenerator[object, None]:
        self._answered = anyio.Event()
        if self.compaction:
            yield NativeCompaction(compaction_id=f"compaction-{self.session.compactions}", summary="compacted")
            yield TurnEnd(finish_reason="stop")
            return
        steps = self._steps()
        if steps is None:
            yield TurnEnd(finish_reason="error", error_type="script-exhausted",
                          error=f"scripted adapter: the script has no turn {self.turn_index + 1} "
                                f"(it has {len(self.adapter.script)})")
            return
        while self.step_index < len(steps):
            if self.phase == "start":
                context = StepContext(turn_index=self.turn_index, step_index=self.step_index, prompt=self.prompt,
                                      results=tuple(self.previous), host_tools=self.host_tools,
                                      workspace=self.adapter.workspace_for(self.session.request))
                step = steps[self.step_index]
                actions = step(context) if callable(step) else step
                self.calls = []
                for index, action in enumerate(actions):
                    async for event in self._act(action, index):
                        yield event
                        if isinstance(event, TurnEnd):
                            return
                if any(c.state in ("asked", "waiting") for c in self.calls):
                    self.phase = "waiting"
                    yield AwaitingAnswers()
            if self.phase == "waiting":
                self._check_answered()
                await self._answered.wait()
                self._answered = anyio.Event()
            results: list[ScriptedResult] = []
            for call in self.calls:
                async for event in self._finish_call(call):
                    yield event
                assert call.content is not None
                results.append(ScriptedResult(tool_call_id=call.id, tool_name=call.tool, content=call.content,
                                              is_error=call.is_error))
            self.previous = results
            self.phase = "start"
            self.step_index += 1
            self.usage = self.usage + STEP_USAGE
            if self.calls and self.step_index < len(steps):
                yield NativeStepEnd(usage=STEP_USAGE)
        yield TurnEnd(finish_reason="stop", usage=self.usage)

    def _builtin(self, name: str) -> BuiltinTool | None:
        for tool in self.adapter.declared_builtins:
            if name in (tool.name, tool.native_name):
                return tool
        return None

    async def _act(self, action: Action, index: int) -> AsyncGenerator[object, None]:
        request = self.session.request
        call_id = getattr(action, "id", None) or f"call-{self.turn_index}-{self.step_index}-{index}"
        if isinstance(action, Say):
            yield NativeText(action.text)
        elif isinstance(action, Think):
            yield NativeReasoning(action.text)
        elif isinstance(action, EchoResults):
            body = " | ".join(f"{r.tool_name}: {r.content}" for r in self.previous)
            yield NativeText(f"{action.prefix} {body}".strip())
        elif isinstance(action, Fail):
            yield TurnEnd(finish_reason="error", error=action.message, error_type=action.error_type, usage=self.usage)
        elif isinstance(action, Crash):
            raise RuntimeError(action.message)
        elif isinstance(action, Sleep):
            await anyio.sleep(action.seconds)
        elif isinstance(action, ChangeFile):
            yield NativeFileChange(change_id=f"{call_id}-change", path=action.path, kind=action.kind)
        elif isinstance(action, Compact):
            yield NativeCompaction(compaction_id=f"{call_id}-compaction", summary=action.summary)
        elif isinstance(action, CallBuiltin):
            builtin = self._builtin(action.tool)
            name = builtin.name if builtin is not None else action.tool
            native = builtin.native_name if builtin is not None else action.tool
            call = _Call(kind="builtin", id=call_id, tool=name, native=native, input=dict(action.input),
                         fixed_output=action.output)
            self.calls.append(call)
            metadata = {k: dict(v) for k, v in action.provider_metadata.items()}
            flt = request.builtin_filter
            if not request.builtin_approvals or (flt is not None and not flt.allows(name)):
                # Announced by the adapter; a call sent as BuiltinApprovalRequest is announced by the core.
                yield NativeToolUse(call_id=call_id, name=native, input=dict(action.input), provider_metadata=metadata)
            if flt is not None and not flt.allows(name):
                call.state = "refused"
                call.content, call.is_error = f"No such tool available: {native}", True
            elif request.builtin_approvals:
                call.state = "asked"
                call.approval_id = f"approval-{call_id}"
                yield BuiltinApprovalRequest(call.approval_id, ToolCall(
                    tool_call_id=call_id, tool_name=name, input=dict(action.input), provider_executed=True,
                    native_tool_name=native, dynamic=builtin is None, provider_metadata=metadata,
                ))
        elif isinstance(action, CallHost):
            host_native = f"{self.adapter.host_tool_prefix}{action.tool}" if self.adapter.host_tool_prefix else None
            call = _Call(kind="host", id=call_id, tool=action.tool, native=host_native or action.tool,
                         input=action.input if isinstance(action.input, str) else dict(action.input), state="waiting")
            self.calls.append(call)
            yield HostToolCall(ToolCall(tool_call_id=call_id, tool_name=action.tool, input=call.input,
                                        native_tool_name=host_native,
                                        provider_metadata={k: dict(v) for k, v in action.provider_metadata.items()}))
        else:  # pragma: no cover - guarded by the Action type
            raise TypeError(f"scripted adapter: unknown action {action!r}")

    async def _finish_call(self, call: _Call) -> AsyncGenerator[object, None]:
        if call.kind == "host":
            return
        if call.state == "denied":
            # The model sees the denial; the core already emitted tool-output-denied for it.
            call.content, call.is_error = f"Permission denied: {call.reason or 'the host denied this call'}", True
            call.state = "answered"
            return
        if call.state in ("run", "approved"):
            call.content, call.is_error = await self._execute(call)
            self.adapter.executed.append(call.id)
        call.state = "answered" if call.state != "refused" else call.state
        assert call.content is not None
        yield NativeToolResult(call_id=call.id, name=call.native, content=call.content, is_error=call.is_error)

    async def _execute(self, call: _Call) -> tuple[str, bool]:
        if call.fixed_output is not None:
            return call.fixed_output, False
        workspace = self.adapter.workspace_for(self.session.request)
        if workspace is None:
            return f"{call.native}: the scripted runtime has no workspace", True
        if call.tool == "bash":
            try:
                return await self._bash(str(call.input.get("command", "")), workspace)
            except OSError as exc:  # PermissionError included
                return f"{call.native} failed: {type(exc).__name__}: {exc}", True
        return run_file_tool(call.tool, call.native, call.input, workspace)

    async def _bash(self, command: str, workspace: Path) -> tuple[str, bool]:
        with anyio.CancelScope(shield=True):  # a cancelled spawn must not leave an untracked process
            process = await anyio.open_process(["bash", "-c", command], cwd=workspace, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, start_new_session=True)
        self._pids.add(process.pid)
        self.adapter.live_processes.add(process.pid)
        chunks: list[bytes] = []
        try:
            with anyio.fail_after(self.adapter.bash_timeout):
                assert process.stdout is not None
                async for chunk in process.stdout:
                    chunks.append(chunk)
                code = await process.wait()
        except TimeoutError:
            kill_group(process.pid)
            return f"command timed out after {self.adapter.bash_timeout} s", True
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    kill_group(process.pid)
                    await process.wait()
                await process.aclose()
            self._pids.discard(process.pid)
            self.adapter.live_processes.discard(process.pid)
        output = truncate_text(b"".join(chunks).decode("utf-8", errors="replace"))
        if code != 0:
            return f"exit code {code}\n{output}", True
        return output, False
