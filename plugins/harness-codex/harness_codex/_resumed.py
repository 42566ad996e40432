"""Continuing a suspended Codex turn in a new app-server process.

The app-server that held the pending requests is gone after ``suspend_turn``, and codex
0.171.0 cannot re-deliver an answer to a request of a dead process. The closest honest
behaviour, used here: resume the persisted thread (``thread/resume``), append the answers
to its history as the Responses items the model would have seen (``thread/inject_items``:
``function_call_output`` for host tools and shell commands, ``custom_tool_call_output`` for
patches), and start a turn with no new input so the model carries on from them.

* a host-tool result reaches the model unchanged (``success: false`` becomes an error text);
* a denied built-in reaches the model as a denial with its reason;
* what the turn waits on is reported from Codex's rollout (:mod:`._rollout`), never from the
  state, and an approved shell command runs as the rollout has it;
* an **approved shell command** is run by the runtime with ``thread/shellCommand`` (unsandboxed,
  as approved; the thread also records it as a user shell command), and its output becomes the
  call's result and the model's ``function_call_output``;
* an **approved patch** cannot be re-applied: its call ends with a ``tool-error`` ("not run:
  Codex restarted") and the model is told to call it again, which then asks again.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from harness_core import (
    HarnessError,
    PendingRequest,
    ToolCall,
    ToolErrorPart,
    ToolOutput,
    ToolResultPart,
    TurnEnd,
)

from ._rollout import RolloutCall, find_rollout, is_patch, open_calls, shell_input
from ._settings import NATIVE_PATCH, NATIVE_SHELL
from ._turn import TurnLedger

if TYPE_CHECKING:
    from ._session import CodexSession

__all__ = ["NOT_RUN", "ResumedTurn", "pending_from_state", "pending_to_state"]

NOT_RUN: Final = ("approved, but not run: the Codex process holding this call was restarted before it ran; "
                  "call the tool again to run it")
"""The result of an approved patch continued after ``suspend_turn``."""


def pending_to_state(ledger: TurnLedger) -> dict[str, Any]:
    """JSON for the unanswered requests: ``{"approvals": {id: call}, "tools": {id: call}}``."""
    def call_json(call: ToolCall) -> dict[str, Any]:
        return {"tool_call_id": call.tool_call_id, "tool_name": call.tool_name, "input": call.input,
                "native_tool_name": call.native_tool_name}

    return {"approvals": {k: call_json(c) for k, (_, c) in ledger.approvals.items()},
            "tools": {k: call_json(c) for k, (_, c) in ledger.tools.items()}}


def pending_from_state(state: Mapping[str, Any]) -> dict[str, dict[str, ToolCall]]:
    """Read :func:`pending_to_state` data back. Raises :class:`HarnessError` on a bad shape (fail closed)."""
    try:
        pending = state["pending"]
        return {kind: {key: ToolCall(tool_call_id=str(c["tool_call_id"]), tool_name=str(c["tool_name"]),
                                     input=c.get("input") or {}, native_tool_name=c.get("native_tool_name"),
                                     provider_executed=kind == "approvals")
                       for key, c in pending[kind].items()} for kind in ("approvals", "tools")}
    except (KeyError, TypeError, AttributeError) as error:
        raise HarnessError(f"codex: unreadable suspended-turn state ({error!r})") from error


def _output_item(call: ToolCall, text: str) -> dict[str, Any]:
    kind = "custom_tool_call_output" if call.native_tool_name == NATIVE_PATCH else "function_call_output"
    return {"type": kind, "call_id": call.tool_call_id, "output": text}


class ResumedTurn:
    """The suspended turn, continued: waits for every answer, then re-drives the thread."""

    def __init__(self, session: CodexSession, pending: dict[str, dict[str, ToolCall]]) -> None:
        self.session = session
        self._approvals = dict(pending["approvals"])
        self._tools = dict(pending["tools"])
        self._items: list[dict[str, Any]] = []
        self._parts: list[object] = []
        self._commands: list[ToolCall] = []
        self._answered = asyncio.Event()
        self._aborted = False
        self._check()

    def _held(self) -> dict[str, RolloutCall]:
        return open_calls(find_rollout(self.session.codex_home, str(self.session.thread_id)))

    def _runtime_approval(self, call: ToolCall, held: Mapping[str, RolloutCall]) -> ToolCall | None:
        """``call`` as the rollout holds it (``None`` when it holds no such call)."""
        found = held.get(call.tool_call_id)
        if found is None or found.name != (call.native_tool_name or call.tool_name):
            return None
        if found.name == NATIVE_SHELL:
            runtime_input = shell_input(found, self.session.cwd)
            return None if runtime_input is None else attrs.evolve(call, input=runtime_input)
        if is_patch(found):
            return call  # a patch never runs on a continued turn (see the module docs): nothing to alter
        return attrs.evolve(call, input=found.arguments) if isinstance(found.arguments, dict) else None

    def pending_requests(self) -> list[PendingRequest]:
        """The answered-to-be calls as Codex's rollout holds them (not as the state says).

        Raises:
            OSError: the rollout cannot be read (the core then refuses to continue).
        """
        held = self._held()
        requests: list[PendingRequest] = []
        for approval_id, call in self._approvals.items():
            runtime = self._runtime_approval(call, held)
            if runtime is not None:
                requests.append(PendingRequest(kind="approval", call=runtime, approval_id=approval_id))
        for call_id, call in self._tools.items():
            found = held.get(call_id)
            if found is not None and found.name == call.tool_name:
                requests.append(PendingRequest(kind="tool-result", call=ToolCall(
                    tool_call_id=call_id, tool_name=found.name, input=found.arguments)))
        return requests

    def _check(self) -> None:
        if not self._approvals and not self._tools:
            self._answered.set()

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Record a decision. Raises ``KeyError`` for an unknown id."""
        call = self._approvals.pop(approval_id)
        runtime: ToolCall | None = None
        if approved and call.native_tool_name == NATIVE_SHELL:
            try:
                runtime = self._runtime_approval(call, self._held())
            except OSError:
                runtime = None  # fail closed: nothing runs that Codex did not record
        if runtime is not None and isinstance(runtime.input.get("command"), str):
            self._commands.append(runtime)
        elif approved:
            self._items.append(_output_item(call, NOT_RUN))
            self._parts.append(ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                             input=call.input, error=NOT_RUN, provider_executed=True))
        else:
            self._items.append(_output_item(call, f"denied by the user: {reason or 'no reason given'}"))
        self._check()

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Record a host tool result. Raises ``KeyError`` for an unknown call id."""
        call = self._tools.pop(tool_call_id)
        self._items.append(_output_item(call, f"error: {output.content}" if output.is_error else output.content))
        self._check()

    async def abort(self) -> None:
        """Give up before the thread is re-driven."""
        self._aborted = True
        self._answered.set()
        turn = self.session.current_turn
        if turn is not None and not turn.ended:
            await turn.abort()

    async def _run(self, call: ToolCall) -> object:
        command = str(call.input["command"])
        cwd = call.input.get("cwd")
        if isinstance(cwd, str) and cwd and Path(cwd) != self.session.cwd:
            command = f"cd {shlex.quote(cwd)} && {command}"
        output, code, failed = await self.session.run_shell_command(command)
        text = output if not code else f"{output}\n[exit code {code}]".lstrip("\n")
        self._items.append(_output_item(call, f"Process exited with code {code}\nOutput:\n{output}"))
        if failed:
            return ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                                 error=text, provider_executed=True)
        return ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                              output=text, provider_executed=True)

    async def events(self) -> AsyncIterator[object]:
        """After every answer: the denial/not-run parts, then the re-driven turn's events."""
        await self._answered.wait()
        if self._aborted:
            yield TurnEnd(finish_reason="aborted")
            return
        for part in self._parts:
            yield part
        try:
            for call in self._commands:
                yield await self._run(call)
            await self.session.inject(self._items)
            turn = await self.session.start_turn(None)
        except Exception as error:
            yield TurnEnd(finish_reason="error", error=f"codex: could not continue the thread: {error}",
                          error_type="runtime-crashed")
            return
        async for event in turn.events():
            yield event
