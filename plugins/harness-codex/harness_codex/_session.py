"""A Codex session: one app-server process (started lazily) and one persistent thread.

Lifecycle (codex 0.171.0 app-server): ``initialize`` (``experimentalApi``) and
``initialized``, then ``thread/start`` (new) or ``thread/resume`` (``resume_from`` /
``continue_from`` state, or after the process died), then one ``turn/start`` per prompt.
``stop`` / ``suspend_turn`` end the process and keep the Codex home (the thread's rollout
lives there), so the JSON state can resume the thread in this or another OS process.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

from harness_core import (
    HarnessConfigurationError,
    HarnessError,
    PromptRequest,
    RuntimeConfinement,
    StartRequest,
    TurnStateError,
)

from . import _protocol as p
from ._config import approval_and_sandbox, argv, config_toml, environment
from ._resumed import ResumedTurn, pending_from_state, pending_to_state
from ._rich import RESULT_CONTENT
from ._rollout import find_rollout
from ._rpc import AppServer, Closed, RpcError, ServerClosedError
from ._sandboxing import confined_app_server
from ._settings import CodexSettings
from ._skills import install_codex_skills
from ._turn import CodexTurn
from ._withheld import WithheldCalls

__all__ = ["STATE_VERSION", "CodexSession"]

STATE_VERSION: Final = 1
_CLIENT: Final = {"name": "harness_codex", "title": "harness-core Codex adapter", "version": "0.1.0"}


def _dynamic_tools(request: StartRequest) -> list[dict[str, Any]]:
    return [p.FunctionDynamicToolSpec(type="function", name=tool.name, description=tool.description,
                                      inputSchema=dict(tool.input_schema)).model_dump(mode="json", exclude_none=True)
            for tool in request.host_tools]


class CodexSession:
    """Live state of one harness session on Codex (see the module docs).

    Raises (from the methods that start the runtime) :class:`HarnessError` when the
    app-server cannot start or refuses the handshake.
    """

    def __init__(self, settings: CodexSettings, codex: Path, request: StartRequest, *,
                 confinement: RuntimeConfinement | None = None) -> None:
        self.settings = settings
        self.confinement = confinement  # the whole app-server runs inside it (see _sandboxing)
        self.codex = codex
        self.request = request
        state = request.continue_from or request.resume_from or {}
        if state and state.get("version") != STATE_VERSION:
            raise HarnessConfigurationError(f"codex: unsupported state version {state.get('version')!r}")
        self.thread_id: str | None = state.get("thread_id")
        self._owned = False
        self._keep = False
        self._raw_events = False  # thread/start asked for raw items (see _withheld)
        if settings.codex_home is not None or settings.home is not None:
            self.home = settings.home or (settings.codex_home or Path()).parent
            self.codex_home = settings.codex_home or self.home / ".codex"
        elif state.get("codex_home"):
            self.home, self.codex_home = Path(state["home"]), Path(state["codex_home"])
            self._owned = bool(state.get("owned"))
        else:
            base = Path(tempfile.mkdtemp(prefix="harness-codex-"))
            self.home, self.codex_home, self._owned = base, base / ".codex", True
        sandbox = request.sandbox
        self.cwd = Path(str(sandbox.root)) if sandbox is not None else (settings.cwd or Path.cwd())
        self.workspace_root = str(self.cwd.resolve())
        """The workspace (``AdapterSession.workspace_root``): the permission mode covers paths inside it only."""
        if not self.cwd.is_dir():
            raise HarnessConfigurationError(f"codex: the workspace {self.cwd} does not exist")
        self._pending = pending_from_state(request.continue_from) if request.continue_from else None
        self.server: AppServer | None = None
        self._turn: CodexTurn | None = None
        self._usage_total: p.TokenUsageBreakdown | None = None
        self._crash: str | None = None
        self._lock = asyncio.Lock()

    # -- the runtime ------------------------------------------------------------------------

    async def _ensure_server(self) -> AppServer:
        async with self._lock:
            if self.server is not None and self.server.closed is None:
                return self.server
            if self.server is not None:
                await self.server.kill()
            self.codex_home.mkdir(parents=True, exist_ok=True)
            install_codex_skills(self.request.skills, self.codex_home)
            config = self.codex_home / "config.toml"
            config.write_text(config_toml(self.settings, self.cwd))
            config.chmod(0o600)
            command, release = argv(self.codex, builtin_approvals=self.request.builtin_approvals), None
            if self.confinement is not None:
                launch = confined_app_server(self.confinement, command, self.settings, self.home, self.codex_home)
                command, release = list(launch.argv), launch.close
            server = AppServer(command, environment(self.settings, self.home, self.codex_home), self.cwd,
                               on_exit=release)
            try:
                try:
                    await server.start()
                except OSError:
                    if release is not None:
                        release()
                    raise
                await asyncio.wait_for(self._handshake(server), self.settings.startup_timeout)
            except (OSError, RpcError, ServerClosedError, TimeoutError) as error:
                stderr = server.closed.stderr[-2000:] if server.closed else ""
                await server.kill()
                raise HarnessError(f"codex: the app-server did not start: {error}\n{stderr}".rstrip()) from error
            self.server = server
            return server

    async def _handshake(self, server: AppServer) -> None:
        init = p.InitializeParams(clientInfo=p.ClientInfo(**_CLIENT),
                                  capabilities=p.InitializeCapabilities(experimentalApi=True))
        await server.request("initialize", init.model_dump(mode="json", exclude_none=True))
        await server.notify("initialized")
        policy, sandbox = approval_and_sandbox(self.request.builtin_approvals)
        common: dict[str, Any] = {"cwd": str(self.cwd), "approvalPolicy": policy, "sandbox": sandbox}
        if self.request.instructions:
            common["developerInstructions"] = self.request.instructions
        # Raw items show calls to withheld host tools, which Codex answers without a thread item.
        # (thread/resume takes no such flag: a resumed thread's turns read its rollout instead).
        raw = {"experimentalRawEvents": True} if self.request.withheld_host_tools else {}
        self._raw_events = self.thread_id is None
        if self.thread_id is None:
            params = p.ThreadStartParams.model_validate({**common, "dynamicTools": _dynamic_tools(self.request), **raw})
            result = await server.request("thread/start", params.model_dump(mode="json", exclude_none=True))
        else:
            resume = p.ThreadResumeParams.model_validate({**common, "threadId": self.thread_id})
            result = await server.request("thread/resume", resume.model_dump(mode="json", exclude_none=True))
        self.thread_id = str(result["thread"]["id"])
        await self._wait_for_mcp(server)

    async def _wait_for_mcp(self, server: AppServer) -> None:
        """Wait until every configured MCP server reports ``ready`` or ``failed``
        (``mcpServer/startupStatus/updated``): a turn started earlier is offered none of its tools."""
        waiting = set(self.settings.mcp_servers)
        while waiting:
            message = await server.inbox.get()
            if isinstance(message, Closed):
                server.inbox.put_nowait(message)
                return
            if message.method == "mcpServer/startupStatus/updated" and message.params.get("status") in (
                    "ready", "failed", "cancelled"):
                waiting.discard(str(message.params.get("name")))

    # -- turns --------------------------------------------------------------------------------

    def _new_turn(self, server: AppServer, turn_id: str | None) -> CodexTurn:
        if self._turn is not None:
            self._usage_total = self._turn.usage_after
            self._crash = self._turn.crash or self._crash
        self._turn = CodexTurn(server, str(self.thread_id), turn_id, usage_before=self._usage_total,
                               interrupt_timeout=self.settings.interrupt_timeout,
                               announce_on_start=not self.request.builtin_approvals,
                               withheld=WithheldCalls(self.request.withheld_host_tools, self._rollout_mark()))
        return self._turn

    def _rollout_mark(self) -> tuple[Path, int] | None:
        """The rollout and its size now, for a resumed thread that withholds host tools (``_withheld``)."""
        if self._raw_events or not self.request.withheld_host_tools or self.thread_id is None:
            return None
        try:
            path = find_rollout(self.codex_home, self.thread_id)
            return path, path.stat().st_size
        except OSError:
            return None

    async def start_turn(self, text: str | None, output_schema: Any = None) -> CodexTurn:
        """``turn/start`` with ``text`` (or no input) on the thread; the server starts first if needed.
        ``output_schema``: the structured-output JSON Schema (``outputSchema``), or ``None``."""
        server = await self._ensure_server()
        items = [{"type": "text", "text": text, "text_elements": []}] if text is not None else []
        params = p.TurnStartParams.model_validate({"threadId": self.thread_id, "input": items,
                                                   "outputSchema": output_schema})
        try:
            result = await server.request("turn/start", params.model_dump(mode="json", exclude_none=True))
        except (RpcError, ServerClosedError) as error:
            raise HarnessError(f"codex: turn/start failed: {error}") from error
        return self._new_turn(server, str(result["turn"]["id"]))

    async def prompt(self, request: PromptRequest) -> CodexTurn:
        """Start a turn for ``request.prompt``."""
        schema = dict(request.output_schema) if request.output_schema is not None else None
        return await self.start_turn(request.prompt, schema)

    async def resume_turn(self) -> ResumedTurn:
        """The turn suspended in ``continue_from``: answers are delivered on the resumed thread."""
        if self._pending is None:
            raise TurnStateError("codex: this session was not started from suspended turn state")
        pending, self._pending = self._pending, None
        return ResumedTurn(self, pending)

    async def inject(self, items: list[dict[str, Any]]) -> None:
        """``thread/inject_items``: append raw Responses items to the thread's history."""
        server = await self._ensure_server()
        params = p.ThreadInjectItemsParams(threadId=str(self.thread_id), items=items)
        await server.request("thread/inject_items", params.model_dump(mode="json"))

    async def run_shell_command(self, command: str) -> tuple[str, int | None, bool]:
        """``thread/shellCommand``: the runtime runs ``command`` unsandboxed, as a user shell
        command recorded in the thread; returns ``(output, exit code, failed)`` once its turn ends.
        Under an OS sandbox the app-server, and so the command, runs inside it.

        Raises:
            ServerClosedError: the process exited first.
        """
        server = await self._ensure_server()
        params = p.ThreadShellCommandParams(threadId=str(self.thread_id), command=command)
        await server.request("thread/shellCommand", params.model_dump(mode="json", exclude_none=True))
        output, code, failed = "", None, True
        while True:
            message = await server.inbox.get()
            if isinstance(message, Closed):
                server.inbox.put_nowait(message)
                raise ServerClosedError(f"the codex app-server exited (code {message.returncode})")
            item = message.params.get("item") or {}
            if message.method == "item/completed" and item.get("type") == "commandExecution":
                done = p.CommandExecutionThreadItem.model_validate(item)
                output, code, failed = done.aggregatedOutput or "", done.exitCode, done.status != "completed"
            elif message.method == "turn/completed":
                return output, code, failed

    async def compact(self) -> CodexTurn:
        """``thread/compact/start``; the turn's events include the ``compaction`` parts."""
        server = await self._ensure_server()
        params = p.ThreadCompactStartParams(threadId=str(self.thread_id))
        await server.request("thread/compact/start", params.model_dump(mode="json"))
        return self._new_turn(server, None)

    # -- detaching ----------------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        self._keep = True
        return {"version": STATE_VERSION, "thread_id": self.thread_id, "home": str(self.home),
                "codex_home": str(self.codex_home), "owned": self._owned}

    async def suspend_turn(self) -> dict[str, Any]:
        """End the process and return JSON state holding the thread and the unanswered requests."""
        turn = self._turn
        if turn is None or turn.ended:
            raise TurnStateError("codex: no unfinished turn to suspend")
        state = {**self._state(), "pending": pending_to_state(turn.ledger)}
        await self._kill()
        return state

    async def stop(self) -> dict[str, Any]:
        """End the process and return JSON state for ``resume_from`` (the same thread)."""
        state = self._state()
        await self._kill()
        return state

    async def _kill(self) -> None:
        if self.server is not None:
            await self.server.kill()

    async def destroy(self) -> None:
        """Kill the process group; delete the temporary homes unless state refers to them. Idempotent."""
        await self._kill()
        if self._owned and not self._keep:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.home)

    @property
    def runtime_error(self) -> str | None:
        """Why the app-server died during the latest turn (``None`` when it did not); the next
        prompt starts a new process that resumes the thread."""
        return self._turn.crash if self._turn is not None else self._crash

    @property
    def tool_result_content(self) -> frozenset[str]:
        """Rich host tool result items Codex receives (``contentItems``: text, images); the
        agent warns on ``tool-result`` parts about the others."""
        return RESULT_CONTENT

    @property
    def current_turn(self) -> CodexTurn | None:
        """The latest turn started on this session, or ``None``."""
        return self._turn

    @property
    def pid(self) -> int | None:
        """The app-server's pid (its process group id), while it runs."""
        return self.server.pid if self.server is not None and self.server.closed is None else None


