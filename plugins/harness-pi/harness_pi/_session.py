"""A harness session over pi: one :class:`~harness_core.AdapterSession`.

The session owns a temporary :class:`~harness_pi._launch.PiHome` and at most one pi
process, started at the first turn and kept across turns. It is restarted on the same
session file (``--session``) when it died, was killed, or must change (other host tools
or instructions). Every record pi writes goes to the current turn.

A suspended turn carries pi's session file. Continuing it (here or in another process)
writes the file back without the interrupted step (the last assistant message calling
the open calls, and what followed), starts pi on it and asks the model to go on; pi
repeats the step's calls and the turn answers them from the answers the host gave
(``harness_pi._calls``). A real model may phrase the step anew: calls it does not repeat
are dropped, new ones are asked as usual. Calls of that step which had already run before
the suspension run again.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import anyio

from harness_core import (
    HarnessConfigurationError,
    HostToolSpec,
    PromptRequest,
    RuntimeConfinement,
    StartRequest,
    TurnEnd,
    TurnStateError,
    install_skills,
    with_output_instruction,
)

from ._launch import PiHome
from ._pending import session_calls
from ._rich import TEXT_ONLY, WITH_IMAGES
from ._rpc import PiCommandError, PiProcess, kill_marked
from ._runtime import PiStartError, children_gone, launch
from ._settings import PiSettings
from ._state import ResumeState, SuspendState, parse_resume, parse_suspend, truncate_session
from ._tasks import spawn
from ._turn import PiTurn, TurnKind

__all__ = ["CONTINUE_PROMPT", "PiSession", "PiStartError"]

CONTINUE_PROMPT: Final = ("(The previous step was interrupted before its tool calls finished; "
                          "continue the task, repeating those calls.)")
"""The message that restarts an interrupted step in a continued turn."""


class PiSession:
    """Live pi state of one harness session (see the module docs).

    Attributes:
        session_id: the harness session id.
        cwd: the workspace pi runs in.
        runtime_error: why pi last exited unexpectedly, or ``None``.
    """

    def __init__(self, settings: PiSettings, prefix: Sequence[str], version: tuple[int, ...],
                 request: StartRequest, *, confinement: RuntimeConfinement | None = None) -> None:
        self._settings = settings
        self._confinement = confinement
        self._prefix = list(prefix)
        self._version = version
        self.session_id = request.session_id
        self._gate = request.builtin_approvals
        self._filter = request.builtin_filter
        self._host_tools: tuple[HostToolSpec, ...] = tuple(request.host_tools)
        self._withheld = request.withheld_host_tools
        self._instructions = request.instructions
        self._continue: SuspendState | None = None
        restored: ResumeState | None = None
        if request.continue_from is not None:
            restored = self._continue = parse_suspend(request.continue_from)
        elif request.resume_from is not None:
            restored = parse_resume(request.resume_from)
        if request.sandbox is not None:
            cwd = Path(request.sandbox.root)
        elif settings.cwd is not None:
            cwd = settings.cwd
        elif restored is not None:
            cwd = Path(restored.cwd)
        else:
            cwd = Path.cwd()
        if not cwd.is_dir():
            raise HarnessConfigurationError(f"pi session {self.session_id!r}: workspace {str(cwd)!r} is not a directory")
        self.cwd = cwd.resolve()
        self.workspace_root = str(self.cwd)
        """The workspace (``AdapterSession.workspace_root``): the permission mode covers paths inside it only."""
        self._home = PiHome.create(settings)
        install_skills(request.skills, self._home.agent_dir / "skills")  # pi's user skills, in the private home
        if self._continue is not None:
            text = truncate_session(self._continue.session_jsonl, set(self._continue.calls))
            self._home.session_file.write_text(text, encoding="utf-8")
        elif restored is not None:
            self._home.session_file.write_text(restored.session_jsonl, encoding="utf-8")
        self._process: PiProcess | None = None
        self._key: object = None
        self._turn: PiTurn | None = None
        self._compactions = itertools.count(1)
        self._destroyed = False
        self._lock = anyio.Lock()
        self.runtime_error: str | None = None

    # -- used by turns -----------------------------------------------------------------------

    def new_compaction_id(self) -> str:
        """A fresh id for a ``compaction`` part."""
        return f"pi-compaction-{self.session_id}-{next(self._compactions)}"

    @property
    def tool_result_content(self) -> frozenset[str]:
        """Rich host tool result items pi passes on: text and images for the model the
        adapter defines (``base_url``), text only with one of pi's own providers."""
        return WITH_IMAGES if self._settings.base_url is not None else TEXT_ONLY

    @property
    def runtime_pids(self) -> list[int]:
        """pi and every process it started (they carry the session's marker); empty when none runs."""
        process = self._process
        return process.group_pids() if process is not None else []

    @property
    def temp_dir(self) -> Path:
        """The session's temporary directory (removed by :meth:`destroy`)."""
        return self._home.root

    @property
    def pi_pid(self) -> int | None:
        """The running pi's process id, or ``None``."""
        process = self._process
        return process.pid if process is not None and process.running else None

    async def answer_ui(self, ui_id: str, value: object) -> None:
        """Answer pi's ``extension_ui_request`` ``ui_id`` with ``value`` (sent as JSON text).

        Raises:
            PiCommandError: pi is not running.
        """
        process = self._process
        if process is None:
            raise PiCommandError("pi is not running")
        await process.send({"type": "extension_ui_response", "id": ui_id, "value": json.dumps(value)})

    async def steer(self, text: str) -> None:
        """pi's RPC ``steer``: queue ``text`` for the running agent (delivered after the current
        tool calls, before the next model call).

        Raises:
            PiCommandError: pi is not running or refused the command.
        """
        process = self._process
        if process is None or not process.running:
            raise PiCommandError("pi is not running")
        await process.request({"type": "steer", "message": text}, timeout=60)

    async def cancel_ui(self, ui_id: str) -> None:
        """Dismiss a dialog (its caller gets ``undefined``: the gate blocks, a host call fails)."""
        process = self._process
        if process is not None:
            with contextlib.suppress(PiCommandError):
                await process.send({"type": "extension_ui_response", "id": ui_id, "cancelled": True})

    # -- the process --------------------------------------------------------------------------

    async def _ensure_process(self, host_tools: Sequence[HostToolSpec], instructions: str | None) -> PiProcess:
        key = (tuple((t.name, t.description, json.dumps(t.input_schema, sort_keys=True, default=repr))
                     for t in host_tools), instructions)
        async with self._lock:
            process = self._process
            if process is not None and process.running and key == self._key:
                return process
            if process is not None:
                self._process = None
                await process.close()
            holder: list[PiProcess] = []

            def on_record(record: dict[str, Any]) -> None:
                self._route(holder[0] if holder else None, record)

            def on_exit(returncode: int | None) -> None:
                if holder and holder[0] is self._process:
                    kill_marked(self._home.marker)  # what the dead pi started (its tools run detached)
                    tail = "; ".join(holder[0].stderr_tail)
                    description = (f"pi (pid {holder[0].pid}) exited unexpectedly (status {returncode})"
                                   + (f"; stderr: {tail[-1500:]}" if tail else "")
                                   + "; the next prompt starts it again on the same session")
                    self.runtime_error = description
                    if self._turn is not None:
                        self._turn.runtime_exited(description)

            process = await launch(self._prefix, self._settings, self._home, self._version, self.cwd,
                                   gate=self._gate, builtin_filter=self._filter, host_tools=host_tools,
                                   instructions=instructions, on_record=on_record, on_exit=on_exit,
                                   confinement=self._confinement)
            holder.append(process)
            self._process, self._key = process, key
            return process

    def _route(self, process: PiProcess | None, record: dict[str, Any]) -> None:
        if process is not self._process:
            return
        turn = self._turn
        if turn is not None and not turn.finished:
            turn.deliver(record)
        elif record.get("type") == "extension_ui_request" and isinstance(record.get("id"), str):
            spawn(self.cancel_ui(record["id"]))  # no turn asks: fail closed

    async def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            with anyio.move_on_after(5):
                await process.exited.wait()

    async def warm_up(self) -> None:
        """Start pi now (it otherwise starts at the first turn) and wait until it answers.

        Raises:
            PiCommandError: pi did not answer ``get_state``.
            PiStartError: the generated extension did not load.
            OSError: pi could not be started.
        """
        process = await self._ensure_process(self._host_tools, self._instructions)
        await process.request({"type": "get_state"}, timeout=120)

    # -- AdapterSession -----------------------------------------------------------------------

    def _check_usable(self, action: str) -> None:
        if self._destroyed:
            raise TurnStateError(f"pi session {self.session_id!r} is destroyed; cannot {action}")
        if self._turn is not None and not self._turn.finished:
            raise TurnStateError(f"pi session {self.session_id!r} has an unfinished turn; cannot {action}")

    def _new_turn(self, kind: TurnKind, host_tools: Sequence[HostToolSpec]) -> PiTurn:
        turn = PiTurn(self, kind, gate=self._gate, host_names=frozenset(t.name for t in host_tools),
                      withheld=self._withheld, settled_event=self._version >= (1,))
        self._turn = turn
        return turn

    async def prompt(self, request: PromptRequest) -> PiTurn:
        """Start a turn with ``request.prompt`` (pi is started or reused as needed).

        Raises:
            TurnStateError: the session is destroyed or a turn is unfinished.
        """
        self._check_usable("start a new turn")
        host_tools = tuple(request.host_tools) or self._host_tools
        instructions = request.instructions if request.instructions is not None else self._instructions
        turn = self._new_turn("prompt", host_tools)
        text = with_output_instruction(request.prompt, request.output_schema)  # structured output by instruction
        await self._send_prompt(turn, text, host_tools, instructions)
        return turn

    async def _send_prompt(self, turn: PiTurn, text: str, host_tools: Sequence[HostToolSpec],
                           instructions: str | None) -> None:
        try:
            process = await self._ensure_process(host_tools, instructions)
            await process.request({"type": "prompt", "message": text}, timeout=120)
        except (OSError, PiStartError) as error:
            turn.end_now(TurnEnd(finish_reason="error", error=f"pi could not be started: {error}",
                                 error_type="runtime-start"))
        except PiCommandError as error:
            turn.end_now(TurnEnd(finish_reason="error", error=f"pi refused the prompt: {error}",
                                 error_type="runtime-crashed"))

    async def compact(self) -> PiTurn:
        """Compact pi's context now (RPC ``compact``) as a turn with a ``compaction`` part.

        Raises:
            TurnStateError: the session is destroyed or a turn is unfinished.
        """
        self._check_usable("compact")
        turn = self._new_turn("compact", self._host_tools)
        try:
            process = await self._ensure_process(self._host_tools, self._instructions)
        except (OSError, PiStartError) as error:
            turn.end_now(TurnEnd(finish_reason="error", error=f"pi could not be started: {error}",
                                 error_type="runtime-start"))
            return turn

        async def run() -> None:
            try:
                data = await process.request({"type": "compact"}, timeout=None)
            except PiCommandError as error:
                turn.end_now(TurnEnd(finish_reason="error", error=f"pi: compaction failed: {error}",
                                     error_type="compaction-failed"))
            else:
                turn.compact_done(data)

        spawn(run())
        return turn

    async def resume_turn(self) -> PiTurn:
        """The turn restored from ``continue_from`` (see the module docs).

        Its pending approvals and host calls are answered with the ``submit_*`` methods;
        pi starts when the host reads the turn's events.

        Raises:
            TurnStateError: the session was not started with ``continue_from``, or a turn runs.
        """
        if self._continue is None:
            raise TurnStateError(f"pi session {self.session_id!r} has no suspended turn to resume")
        self._check_usable("resume a turn")
        state, self._continue = self._continue, None
        turn = self._new_turn("continue", self._host_tools)
        turn.calls.restore(state.calls)
        turn.held = session_calls(state.session_jsonl)

        async def prelude() -> None:
            process = await self._ensure_process(self._host_tools, self._instructions)
            await process.request({"type": "prompt", "message": CONTINUE_PROMPT}, timeout=120)

        turn.set_prelude(prelude)
        return turn

    def _session_text(self) -> str:
        path = self._home.session_file
        return path.read_text(encoding="utf-8") if path.exists() else ""

    async def suspend_turn(self) -> dict[str, Any]:
        """Detach from the paused turn: pi is stopped; returns JSON state carrying its session.

        Raises:
            TurnStateError: no unfinished turn.
        """
        turn = self._turn
        if turn is None or turn.finished:
            raise TurnStateError(f"pi session {self.session_id!r} has no unfinished turn to suspend")
        turn.finish()
        self._turn = None
        await self._kill()
        calls = {call_id: call for call_id, call in turn.calls.open.items()}
        state = SuspendState(cwd=str(self.cwd), session_name=self._home.session_file.name,
                             session_jsonl=self._session_text(), calls=calls)
        return state.model_dump(mode="json")

    async def stop(self) -> dict[str, Any]:
        """Stop pi and return JSON state (its session file) for ``resume_from``.

        Raises:
            TurnStateError: a turn is unfinished.
        """
        self._check_usable("stop")
        process, self._process = self._process, None
        if process is not None:
            await process.close()
        state = ResumeState(cwd=str(self.cwd), session_name=self._home.session_file.name,
                            session_jsonl=self._session_text())
        return state.model_dump(mode="json")

    async def destroy(self) -> None:
        """Stop pi (its whole process group) and remove the temporary directory. Idempotent."""
        if self._destroyed:
            return
        self._destroyed = True
        if self._turn is not None:
            self._turn.finish()
        process, self._process = self._process, None
        if process is not None:
            with anyio.CancelScope(shield=True):
                await process.close(grace=1.0)
        self._home.cleanup()

    async def abort_turn(self, turn: PiTurn) -> None:
        """Abort ``turn``: dialogs are dismissed, pi's ``abort`` runs, leftovers are killed.

        When pi does not settle within ``abort_timeout`` seconds its process group is
        killed; the next prompt starts pi again on the same session file.
        """
        process = self._process
        if turn is not self._turn or process is None or not process.running:
            return
        for ui_id in turn.calls.outstanding_ui():
            await self.cancel_ui(ui_id)
        try:
            await process.request({"type": "abort"}, timeout=self._settings.abort_timeout)
        except PiCommandError:
            await self._kill()
            return
        await children_gone(process, 2.0)
        for pid in process.group_pids():
            if pid != process.pid:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
