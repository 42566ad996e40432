"""The durable turn of a runtime that owns its loop (Claude Code): one DBOS step per slice,
resumed from the runtime's own session after a crash.

The runtime's model requests happen inside its own process and cannot be recorded, and a
runtime resumed from its transcript does not repeat what it already did, so its work
cannot be replayed step by step in DBOS's positional order. The turn workflow is instead::

    slice 0 (step) -> [status event, recv answers, slice 1 (step) -> ...] -> result

Each ``runtime-slice`` step drives the runtime until the turn pauses (approval,
client-side result) or ends, publishing its parts; a paused runtime stays alive in this
process between two slices, so an answer in the same worker continues it losslessly.
Host-tool executions are recorded by call id (:mod:`harness_dbos.runtime_tool`). A slice
that finds no live session for its turn (a worker recovering it) rebuilds one from the
runtime's own persisted session (:class:`~harness_dbos.claude_code_resume.ClaudeCodeResume`)
with the recorded host results and the delivered answers, and goes on from there; parts
it publishes follow the ones already in the stream.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Final

import anyio
import attrs

from harness_core import (
    ContinuationStore,
    HarnessAgent,
    HarnessSession,
    LocalSandbox,
    StreamResult,
    ToolOutput,
    TurnStateError,
)

from ._context import TurnRuntime, current_turn
from ._recorded import Outcome, run_recorded_step
from .messages import ANSWERS_TOPIC, STATUS_EVENT
from .publish import PARTS_STREAM, publish_slice
from .resumer import RuntimeResumer
from .runtime_records import RuntimeRecords, record_key
from .runtime_tool import RESULT, STARTED

__all__ = ["CONTINUE_PROMPT", "RuntimeTurn"]

CONTINUE_PROMPT: Final = "Continue from where you left off."
"""The prompt a recovered turn sends when the runtime's transcript holds the turn's prompt
but no open call (the crash came during a model request): Claude Code's own resume note."""

_PAUSED: Final = frozenset({"awaiting-approval", "awaiting-tool-result"})
_RUNTIME: Final = "runtime-session"


@attrs.define
class _Live:
    session: HarnessSession
    poller: asyncio.Task[None] | None = None


class RuntimeTurn:
    """Runs a :class:`~harness_dbos.DurableAgent`'s turns on a runtime with its own process.

    Args:
        agent: the agent (harness ``claude-code``).
        resumer: how to rebuild the runtime's session after a crash.
        claims / records: the claim store and the runtime records (callables, resolved
            when a turn runs: :func:`harness_dbos.launch` makes them).
        answer_wait / publish_interval: as for :class:`~harness_dbos.DurableAgent`.
    """

    def __init__(self, agent: HarnessAgent, resumer: RuntimeResumer, *, claims: Callable[[], ContinuationStore],
                 records: Callable[[], RuntimeRecords], answer_wait: float, publish_interval: float) -> None:
        self._agent = agent
        self._resumer = resumer
        self._claims = claims
        self._records = records
        self._answer_wait = answer_wait
        self._interval = publish_interval
        self._live: dict[str, _Live] = {}

    async def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """The workflow body (see the module docstring)."""
        from dbos import DBOS

        workflow_id = DBOS.workflow_id
        assert workflow_id is not None
        runtime = TurnRuntime(workflow_id=workflow_id, claims=self._claims(), records=self._records())
        token = current_turn.set(runtime)
        try:
            parts, texts = 0, list[str]()
            answers: dict[str, Any] | None = None
            pause: dict[str, Any] | None = None
            while True:
                done: dict[str, Any] = await run_recorded_step(
                    "runtime-slice", functools.partial(self._slice, runtime, request, parts, answers, pause))
                parts = done["parts"]
                texts.append(done["text"])
                if not done["paused"]:
                    break
                pause = done["status"]
                await DBOS.set_event_async(STATUS_EVENT, pause)
                answers = await self._receive()
            summary = {"state": "finished", "finish_reason": done["finish_reason"], "parts": parts}
            await DBOS.set_event_async(STATUS_EVENT, summary)
            await DBOS.close_stream_async(PARTS_STREAM)
            return {**summary, "text": "".join(texts), "session_state": done["session_state"]}
        finally:
            current_turn.reset(token)
            live = self._live.pop(workflow_id, None)
            if live is not None:
                await self._close(live)

    async def _receive(self) -> dict[str, Any]:
        from dbos import DBOS

        while True:
            message: dict[str, Any] | None = await DBOS.recv_async(ANSWERS_TOPIC, timeout_seconds=self._answer_wait)
            if message is not None:
                return message

    # -- one slice (a DBOS step) ------------------------------------------------------------

    async def _slice(self, runtime: TurnRuntime, request: dict[str, Any], first: int,
                     answers: dict[str, Any] | None, pause: dict[str, Any] | None) -> dict[str, Any]:
        workflow_id = runtime.workflow_id
        live = self._live.get(workflow_id)
        if not await anyio.to_thread.run_sync(runtime.claims.claim, _attempt_key(workflow_id, first), workflow_id):
            first = await _published(workflow_id, first)  # an earlier attempt at this slice published some parts
        try:
            if live is None:
                live, result = await self._open(runtime, request, answers, pause)
                self._live[workflow_id] = live
            else:
                result = self._agent.continue_stream(
                    session=live.session, approval_responses=list((answers or {}).get("approval_responses") or ()),
                    tool_result_continuations=list((answers or {}).get("tool_results") or ()))
        except (TurnStateError, ValueError, TypeError) as exc:
            if live is None or pause is None:
                raise
            status = {**pause, "rejected": f"{type(exc).__name__}: {exc}"}
            return {"paused": True, "status": status, "parts": first, "text": "", "finish_reason": None}
        end = await publish_slice(result, first, self._interval)
        text = "".join(getattr(p, "text", "") for p in result.parts if p.type == "text-delta")
        count = first + end.count
        if end.finish_reason in _PAUSED:
            await self._note_runtime(runtime, live)
            status = _status(live.session, end.finish_reason or "", count)
            return {"paused": True, "status": status, "parts": count, "text": text, "finish_reason": end.finish_reason}
        session = live.session
        state = await session.stop() if not session.has_unfinished_turn() else None
        return {"paused": False, "parts": count, "text": text, "finish_reason": end.finish_reason,
                "session_state": state}

    async def _open(self, runtime: TurnRuntime, request: dict[str, Any], answers: Mapping[str, Any] | None,
                    pause: Mapping[str, Any] | None) -> tuple[_Live, StreamResult]:
        """A new session for the turn: fresh, or rebuilt from the runtime's session."""
        workflow_id, records = runtime.workflow_id, runtime.records
        assert records is not None
        workspace = request.get("workspace")
        sandbox = LocalSandbox(workspace) if workspace else None
        session_id = request["session_id"]
        recorded = await anyio.to_thread.run_sync(records.get, record_key(workflow_id, _RUNTIME))
        if recorded is None:  # a new turn, or the runtime never reported its session before a crash
            session = await self._agent.create_session(session_id=session_id, sandbox=sandbox,
                                                       resume_from=request.get("resume_from"))
            return self._watch(runtime, session), self._agent.stream(session=session, prompt=request["prompt"])
        outcomes = {call_id: _output(outcome) for call_id, outcome
                    in (await anyio.to_thread.run_sync(records.of_workflow, workflow_id, RESULT)).items()}
        started = set(await anyio.to_thread.run_sync(records.of_workflow, workflow_id, STARTED))
        built = self._resumer.continue_state(session_id=session_id, runtime=recorded, pause=pause,
                                             outcomes=outcomes, started=started)
        if built is not None:
            state, results = built
            session = await self._agent.create_session(session_id=session_id, sandbox=sandbox,
                                                       continue_from=self._signed(state))
            approvals = [a for a in (answers or {}).get("approval_responses") or ()
                         if (a.get("approval_id") or a.get("approvalId")) in session.pending_approvals]
            results += [r for r in (answers or {}).get("tool_results") or ()
                        if (r.get("tool_call_id") or r.get("toolCallId")) in session.pending_tool_calls]
            try:
                result = self._agent.continue_stream(session=session, approval_responses=approvals,
                                                     tool_result_continuations=results)
            except BaseException:
                await self._close(_Live(session))  # refused (fail closed): the turn ends with the error
                raise
            return _Live(session), result
        if self._resumer.holds_prompt(recorded, request["prompt"]):
            resume = self._signed(self._resumer.resume_state(session_id=session_id, runtime=recorded))
            session = await self._agent.create_session(session_id=session_id, sandbox=sandbox, resume_from=resume)
            return _Live(session), self._agent.stream(session=session, prompt=CONTINUE_PROMPT)
        session = await self._agent.create_session(session_id=session_id, sandbox=sandbox,
                                                   resume_from=request.get("resume_from"))
        return _Live(session), self._agent.stream(session=session, prompt=request["prompt"])

    def _signed(self, state: dict[str, Any]) -> dict[str, Any]:
        """``state`` signed with the agent's ``state_secret``, if it has one (the state is
        built here from the records and the transcript, not returned by the agent)."""
        signer = self._agent.config.state_signer
        return signer.sign(state) if signer is not None else state

    def _watch(self, runtime: TurnRuntime, session: HarnessSession) -> _Live:
        """Record the runtime's session id as soon as it reports it (polled every 20 ms)."""
        live = _Live(session)

        async def poll() -> None:
            while not await self._note_runtime(runtime, live):  # noqa: ASYNC110 (nothing to wait on: a poll)
                await asyncio.sleep(0.02)

        live.poller = asyncio.ensure_future(poll())
        return live

    async def _note_runtime(self, runtime: TurnRuntime, live: _Live) -> bool:
        found = self._resumer.runtime_session(live.session)
        if found is None:
            return False
        assert runtime.records is not None
        await anyio.to_thread.run_sync(runtime.records.put, record_key(runtime.workflow_id, _RUNTIME),
                                       runtime.workflow_id, found)
        return True

    async def _close(self, live: _Live) -> None:
        if live.poller is not None:
            live.poller.cancel()
        with anyio.CancelScope(shield=True):
            await live.session.destroy()


def _attempt_key(workflow_id: str, first: int) -> str:
    """The claim of the first attempt at a slice starting at part ``first``."""
    return hashlib.sha256(f"harness-dbos/runtime-slice\0{workflow_id}\0{first}".encode()).hexdigest()


def _output(outcome: Outcome) -> ToolOutput:
    if outcome.failure is not None:
        return ToolOutput(f"Error: {outcome.failure.message}", is_error=True)
    value = outcome.value
    return value if isinstance(value, ToolOutput) else ToolOutput(str(value))


async def _published(workflow_id: str, first: int) -> int:
    """The index after the last part already in the turn's stream (at least ``first``):
    a slice a crash cut short published some parts; the recovered slice's parts follow."""
    from dbos import DBOS

    highest = first - 1
    try:
        async for batch in DBOS.read_stream_async(workflow_id, PARTS_STREAM, timeout_seconds=0.3):
            highest = max([highest, *(item["index"] for item in batch)])
    except Exception as exc:  # DBOSStreamTimeoutError: no more batches for now
        if type(exc).__name__ != "DBOSStreamTimeoutError":
            raise
    return highest + 1


def _status(session: HarnessSession, state: str, parts: int) -> dict[str, Any]:
    return {
        "state": state,
        "parts": parts,
        "pending_approvals": {k: v.model_dump(mode="json") for k, v in session.pending_approvals.items()},
        "pending_tool_calls": {k: v.model_dump(mode="json") for k, v in session.pending_tool_calls.items()},
    }
