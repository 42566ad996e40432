"""DurableAgent: a HarnessAgent whose turns are DBOS workflows.

A turn (:meth:`DurableAgent.start_turn`) is the workflow ``harness.turn.<name>``. Inside
it, every model request of a :class:`~harness_dbos.DurableModelClient` is a recorded step
and every host-tool and built-in execution is recorded (by call id on SQLite,
:mod:`harness_dbos.inline_tool`; as a step otherwise, :mod:`harness_dbos.tool_step`); each result slice's parts are published to the stream
``harness.parts``; a turn paused for approvals or client-side results publishes its status
(event ``harness.status``) and waits in ``DBOS.recv`` (topic ``harness.answers``) for
:meth:`DurableAgent.answer` / :meth:`harness_dbos.DurableClient.answer` from any process.
A worker killed anywhere in the turn is recovered by the next worker that launches DBOS
(same application version and executor id): the workflow runs again from its start,
recorded steps return their records, and the turn goes on from where it stopped. Two workers
recovering a turn together run it once: DBOS's recovery queue hands it to one of them, and
an execution that lost the turn to another (a worker launched while a live process runs it
recovers it too) is stopped by DBOS at its next recorded step
(``DBOSWorkflowConflictIDError``, never caught here); a tool it was running is not run again
(its start claim), the new owner gives the model :data:`~harness_dbos.INTERRUPTED` for it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from harness_core import (
    ContinuationStore,
    HarnessAgent,
    HarnessConfigurationError,
    HarnessSession,
    LocalSandbox,
    StreamResult,
    TurnStateError,
)

from . import plugin as plugin_module
from ._context import TurnRuntime, current_turn
from ._loop import on_turn_loop
from ._recorded import run_recorded_step
from .inline_tool import uses_inline_records
from .launch import claims_store, runtime_records
from .messages import ANSWERS_TOPIC, STATUS_EVENT, answers_message
from .model import DurableModelClient
from .plugin import PLUGIN_NAME
from .publish import publish_slice
from .resumers import runtime_turn
from .runtime_records import RuntimeRecords

__all__ = ["DurableAgent"]

_PAUSED: Final = frozenset({"awaiting-approval", "awaiting-tool-result"})
BY_CALL_ID_STEP: Final = "tool-records:by-call-id"
"""The first step of a built-in harness turn whose tool executions are recorded by call id
(SQLite): a turn recorded by an older version (tool executions as positional steps) fails
on it at recovery (``DBOSUnexpectedStepError``) before any tool could run again."""


class DurableAgent:
    """Runs ``agent``'s turns as DBOS workflows.

    Build it at import time in every process (workers and the process starting turns),
    with the same ``name``, before :func:`harness_dbos.launch` (DBOS registers workflows
    before launch).

    Args:
        agent: the agent; for the built-in harness its model must be a
            :class:`DurableModelClient` (``harness_options={"model": durable_model(client)}``),
            so that model requests are steps.
        name: the workflow name suffix (``harness.turn.<name>``), unique per process.
        claims: the host-tool start claims; default: the store :func:`harness_dbos.launch`
            made beside the system database.
        answer_wait: seconds one ``recv`` waits before waiting again (a paused turn waits
            for ever; this only bounds each recorded wait).
        publish_interval: seconds between two stream writes of a slice's parts (the
            most a part waits before attached readers see it).
        allow_unrecorded_runtime: accept a harness that has no resume support (Codex,
            pi, ACP, a scripted adapter): its host tools are steps, but its model loop is
            not recorded, so a recovered turn sends its prompt again. Claude Code needs no
            opt-in: a recovered turn resumes its CLI session (:mod:`harness_dbos.runtime_turn`).

    Raises:
        HarnessConfigurationError: the ``dbos`` plugin is not registered on the agent's
            plugin manager (host tools would not be steps), a built-in harness model is
            not a :class:`DurableModelClient`, or a harness without resume support and
            without ``allow_unrecorded_runtime`` (fail closed: nothing would be recorded;
            the message says why that runtime cannot be resumed).
    """

    def __init__(self, agent: HarnessAgent, *, name: str = "default", claims: ContinuationStore | None = None,
                 answer_wait: float = 3600.0, allow_unrecorded_runtime: bool = False,
                 publish_interval: float = 0.05) -> None:
        from dbos import DBOS

        if not any(plugin is plugin_module for plugin in agent.plugin_manager.pm.get_plugins()):
            raise HarnessConfigurationError(
                f"DurableAgent: the {PLUGIN_NAME!r} plugin (harness-dbos) is not registered on the agent's "
                "plugin manager, so host tools would not be recorded; install harness-dbos, do not disable it "
                "(HARNESS_DISABLE_PLUGINS), or pass plugins=[harness_dbos.plugin]"
            )
        if agent.harness_id == "builtin" and not isinstance(getattr(agent.adapter, "model", None), DurableModelClient):
            raise HarnessConfigurationError(
                "DurableAgent: the built-in harness's model must be wrapped with harness_dbos.durable_model(...) "
                "so that model requests are recorded steps"
            )
        self._runtime = runtime_turn(agent, claims=lambda: claims or claims_store(), records=runtime_records,
                                     answer_wait=answer_wait, publish_interval=publish_interval,
                                     allow_unrecorded_runtime=allow_unrecorded_runtime)
        self.agent = agent
        self.name = name
        self.workflow_name = f"harness.turn.{name}"
        self._claims = claims
        self._answer_wait = answer_wait
        self._publish_interval = publish_interval
        self._handles: dict[str, Any] = {}
        self._workflow = DBOS.workflow(name=self.workflow_name)(self._make_workflow())

    def __repr__(self) -> str:
        return f"DurableAgent({self.workflow_name!r}, harness={self.agent.harness_id!r})"

    def _make_workflow(self) -> Any:
        durable = self

        async def harness_turn(request: dict[str, Any]) -> dict[str, Any]:
            if durable._runtime is not None:  # a runtime with its own process: harness_dbos.runtime_turn
                return await durable._runtime.run(request)
            return await durable._run(request)

        return harness_turn

    # -- starting and answering (from any process with DBOS launched) ---------------------

    async def start_turn(self, prompt: str, *, session_id: str | None = None, workflow_id: str | None = None,
                         workspace: str | Path | None = None, resume_from: Mapping[str, Any] | None = None) -> str:
        """Start a durable turn and return its workflow id at once (the turn runs in this
        process, on DBOS's event loop whatever loop calls this: the loop :func:`harness_dbos.launch`
        was called in, else DBOS's background loop thread, where DBOS runs recovered turns too,
        so the agent's loop-bound objects are only used on one loop; another worker recovers
        the turn if this process dies).

        Args:
            prompt: the user's message.
            session_id: the harness session id (default: a new one).
            workflow_id: the workflow id (default: ``<session_id>:<random>``); starting
                the same id twice starts one turn.
            workspace: the directory of a :class:`~harness_core.LocalSandbox`, or ``None``.
            resume_from: ``state`` from an earlier turn's result, to go on with the same
                conversation.

        Raises:
            TypeError: ``prompt`` is not a non-empty string (nothing is started).
            HarnessConfigurationError: DBOS is not launched in this process.
        """
        from dbos import DBOS, SetWorkflowID

        if not isinstance(prompt, str) or not prompt.strip():  # refused here, not recorded for a worker
            raise TypeError(f"start_turn() takes the prompt as a non-empty string, got {prompt!r}")
        session_id = session_id or f"session-{uuid.uuid4().hex[:12]}"
        workflow_id = workflow_id or f"{session_id}:{uuid.uuid4().hex[:12]}"
        request = {"prompt": prompt, "session_id": session_id,
                   "workspace": None if workspace is None else str(workspace),
                   "resume_from": None if resume_from is None else dict(resume_from)}

        async def start() -> Any:
            with SetWorkflowID(workflow_id):
                return await DBOS.start_workflow_async(self._workflow, request)

        # on DBOS's loop, where a recovery of this turn (or any other turn) runs too: see _loop.py
        self._handles[workflow_id] = await on_turn_loop(start)  # awaited directly by result() here
        return workflow_id

    async def answer(self, workflow_id: str, *, approval_responses: Sequence[Mapping[str, Any]] = (),
                     tool_results: Sequence[Mapping[str, Any]] = (), idempotency_key: str | None = None) -> None:
        """Deliver approval responses / client-side tool results to a paused turn.

        Answers not matching what the turn waits for are refused by the turn (status
        ``rejected``), which then keeps waiting; nothing runs.
        """
        from dbos import DBOS

        message, key = answers_message(approval_responses, tool_results)
        await DBOS.send_async(workflow_id, message, ANSWERS_TOPIC, idempotency_key=idempotency_key or key)

    async def result(self, workflow_id: str) -> dict[str, Any]:
        """Wait for the turn and return its result: ``finish_reason``, ``text`` (every
        slice's text), ``parts`` (count), ``session_state`` (for the next turn's
        ``resume_from``; ``None`` when the turn did not end idle)."""
        from dbos import DBOS

        handle: Any = self._handles.get(workflow_id) or await DBOS.retrieve_workflow_async(workflow_id)

        async def wait() -> dict[str, Any]:
            outcome: dict[str, Any] = await handle.get_result(polling_interval_sec=0.05)
            return outcome

        value = await on_turn_loop(wait)  # a started turn's handle is a task of DBOS's loop
        self._handles.pop(workflow_id, None)
        return value

    # -- the workflow body --------------------------------------------------------------

    async def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        from dbos import DBOS

        workflow_id = DBOS.workflow_id
        assert workflow_id is not None
        tool_records = _tool_records()
        if tool_records is not None:
            await run_recorded_step(BY_CALL_ID_STEP, _marker)
        token = current_turn.set(TurnRuntime(workflow_id=workflow_id, claims=self._claims or claims_store(),
                                             tool_records=tool_records))
        try:
            workspace = request.get("workspace")
            session = await self.agent.create_session(
                session_id=request["session_id"], sandbox=LocalSandbox(workspace) if workspace else None,
                resume_from=request.get("resume_from"),
            )
            try:
                return await self._drive(session, request["prompt"])
            finally:
                await session.destroy()
        finally:
            current_turn.reset(token)

    async def _drive(self, session: HarnessSession, prompt: str) -> dict[str, Any]:
        from dbos import DBOS

        result = self.agent.stream(session=session, prompt=prompt)
        parts, texts = 0, list[str]()
        while True:
            end = await publish_slice(result, parts, self._publish_interval)
            parts += end.count
            texts.extend(getattr(p, "text", "") for p in result.parts if p.type == "text-delta")
            if end.finish_reason not in _PAUSED:
                break
            await DBOS.set_event_async(STATUS_EVENT, _status(session, end.finish_reason or "", parts))
            result = await self._wait_answers(session, parts)
        text = "".join(texts)
        state = await session.stop() if not session.has_unfinished_turn() else None
        summary = {"state": "finished", "finish_reason": end.finish_reason, "parts": parts}
        await DBOS.set_event_async(STATUS_EVENT, summary)
        await DBOS.close_stream_async("harness.parts")
        return {**summary, "text": text, "session_state": state}

    async def _wait_answers(self, session: HarnessSession, parts: int) -> StreamResult:
        from dbos import DBOS

        while True:
            message = await DBOS.recv_async(ANSWERS_TOPIC, timeout_seconds=self._answer_wait)
            if message is None:
                continue
            try:
                return self.agent.continue_stream(
                    session=session, approval_responses=list(message.get("approval_responses") or ()),
                    tool_result_continuations=list(message.get("tool_results") or ()),
                )
            except (TurnStateError, ValueError, TypeError, AttributeError) as exc:
                status = {**_status(session, str(session.state), parts), "rejected": f"{type(exc).__name__}: {exc}"}
                await DBOS.set_event_async(STATUS_EVENT, status)


def _tool_records() -> RuntimeRecords | None:
    """The records of tool executions by call id: on SQLite after :func:`harness_dbos.launch`,
    else ``None`` (DBOS steps, :mod:`harness_dbos.tool_step`)."""
    try:
        records = runtime_records()
    except HarnessConfigurationError:
        return None
    return records if uses_inline_records(records) else None


async def _marker() -> bool:
    return True


def _status(session: HarnessSession, state: str, parts: int) -> dict[str, Any]:
    return {
        "state": state,
        "parts": parts,
        "pending_approvals": {k: v.model_dump(mode="json") for k, v in session.pending_approvals.items()},
        "pending_tool_calls": {k: v.model_dump(mode="json") for k, v in session.pending_tool_calls.items()},
    }
