"""A harness session over one ACP agent process: one :class:`~harness_core.AdapterSession`.

The session spawns the agent (in its own process group; wholly inside an OS sandbox when the
session has one: :mod:`harness_acp._confine`), ``initialize``\\ s it (``fs.readTextFile`` /
``fs.writeTextFile``, no terminal), opens the ACP session with ``session/new`` (``cwd``, the
user's MCP servers plus the host-tool relay) or ``session/load`` when resuming, and sets the
session mode a ``permission_mode_mapping`` entry asks for. Turns are ``session/prompt``; a
dead agent is restarted at the next prompt (``session/load`` when supported). With approvals,
writes need an approved call naming the file (:mod:`._write_grants`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

from harness_core import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    HostToolSpec,
    LocalSandbox,
    PromptRequest,
    StartRequest,
    ToolOutput,
    TurnStateError,
    runtime_confinement,
    with_output_instruction,
)

from ._client import AcpClient
from ._confine import check_reachable, confined_agent
from ._fs import WorkspaceFiles
from ._process import AgentProcess, AgentStartError
from ._profiles import LaunchRequest, isolated_environ, result_content
from ._relay import RelayChannel, acp_mcp_server
from ._settings import HARNESS_ID, HOST_SERVER, AcpSettings
from ._turn import AcpTurn, permission_response
from ._write_grants import may_write

__all__ = ["AcpSession"]

_STATE_KEY: Final = "acp_session_id"


def _unwrap(state: object) -> dict[str, Any]:
    if isinstance(state, dict) and "adapter" in state and _STATE_KEY not in state:
        state = state["adapter"]
    if not isinstance(state, dict) or not isinstance(state.get(_STATE_KEY), str):
        raise HarnessConfigurationError(f"acp: unreadable resume state (expected {{{_STATE_KEY!r}: ...}})")
    return state


class AcpSession:
    """Live state of one harness session on an ACP agent (see the module docstring).

    Attributes:
        session_id: the harness session id.
        acp_session_id: the agent's session id, once opened.
        cwd: the workspace (``session/new`` ``cwd``).
        label: the agent's display name.
        host_server: the relay MCP server's name.
    """

    host_server = HOST_SERVER

    def __init__(self, settings: AcpSettings, request: StartRequest) -> None:
        self._settings = settings
        self._confinement = runtime_confinement(HARNESS_ID, request.sandbox)  # never run unconfined silently
        check_reachable(self._confinement, settings)
        self.session_id = request.session_id
        self.label = settings.name
        self.builtin_approvals = request.builtin_approvals
        self.tool_result_content = result_content(settings.profile)
        self._permission_mode = request.permission_mode
        self._host_tools: tuple[HostToolSpec, ...] = tuple(request.host_tools)
        self._instructions = request.instructions
        self._skills = tuple(request.skills)  # installed by the profile's launch (refused at construction otherwise)
        self._resume = _unwrap(request.resume_from) if request.resume_from is not None else None
        if request.continue_from is not None:
            raise HarnessCapabilityUnsupportedError(
                HARNESS_ID, "continuing a suspended turn in another process",
                f"{self.label}'s pending request lives in the agent process; answer it in the same process")
        if request.sandbox is not None:
            cwd = Path(request.sandbox.root)
        elif settings.cwd is not None:
            cwd = settings.cwd
        elif self._resume is not None and isinstance(self._resume.get("cwd"), str):
            cwd = Path(self._resume["cwd"])
        else:
            cwd = Path.cwd()
        if not cwd.is_dir():
            raise HarnessConfigurationError(f"acp session {self.session_id!r}: workspace {str(cwd)!r} is not a directory")
        self.cwd = cwd.resolve()
        self.workspace_root = str(self.cwd)  # AdapterSession.workspace_root: the permission mode's scope
        profile = settings.profile
        self._writes_config = settings.base_url is not None
        if self._host_tools and profile is not None and not profile.can_reach_mcp(self._writes_config):
            raise HarnessCapabilityUnsupportedError(
                HARNESS_ID, f"host tools on agent {self.label!r}",
                f"{self.label} ignores the MCP servers of session/new, so the host-tool relay cannot reach it; "
                "remove the host tools (inactive_tools=...), let the adapter write the agent's config (base_url=...) "
                "or use another agent")
        self.reject_ends_turn = profile.reject_ends_turn if profile is not None else False
        self.step_signal = profile.step_signal if profile is not None else ""  # AgentProfile.step_signal
        self.files = WorkspaceFiles(request.sandbox or LocalSandbox(self.cwd), self._file_written, lambda to, resolve:
                                    may_write(self.builtin_approvals, self._turn, to, resolve))
        self._scratch = Path(tempfile.mkdtemp(prefix="harness-acp-"))
        self._relay: RelayChannel | None = None
        self._process: AgentProcess | None = None
        self._agent_caps: Any = None
        self.acp_session_id: str | None = self._resume[_STATE_KEY] if self._resume else None
        self._turn: AcpTurn | None = None
        self._destroyed = False
        self._first_prompt = True
        self._loading = False
        self._restart = False
        self._watcher: asyncio.Future[None] | None = None
        self.runtime_error: str | None = None

    # -- process ---------------------------------------------------------------------------

    @property
    def conn(self) -> Any:
        """The live ACP connection (raises ``TurnStateError`` without one)."""
        if self._process is None:
            raise TurnStateError(f"acp session {self.session_id!r}: the agent is not running")
        return self._process.conn

    @property
    def agent_pid(self) -> int | None:
        """The agent's pid (its process group id) while it runs."""
        return self._process.pid if self._process is not None and self._process.running else None

    def _mapped_mode(self) -> str | None:
        return self._settings.permission_mode_mapping.get(self._permission_mode)

    async def open(self) -> None:
        """Spawn the agent and open (or load) the ACP session.

        Raises:
            HarnessConfigurationError: the agent cannot be started or fails the handshake.
            HarnessCapabilityUnsupportedError: resuming on an agent without ``session/load``,
                an HTTP MCP server the agent cannot take, or a mapped session mode it lacks.
        """
        try:
            await asyncio.wait_for(self._open(), self._settings.startup_timeout)
        except TimeoutError:
            await self._kill()
            raise HarnessConfigurationError(
                f"acp: {self.label} did not finish initialize + session/new within {self._settings.startup_timeout:g} s"
            ) from None
        except (HarnessCapabilityUnsupportedError, HarnessConfigurationError):
            await self._kill()
            raise
        except Exception as error:
            detail = self._process.describe_exit() if self._process is not None else ""
            await self._kill()
            raise HarnessConfigurationError(f"acp: could not start {self.label}: {error} {detail}".strip()) from error

    async def _open(self) -> None:
        import acp
        from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

        settings = self._settings
        profile = settings.profile
        mapped = self._mapped_mode()
        configs: dict[str, Any] = {name: dict(config) for name, config in settings.mcp_servers.items()}
        if self._host_tools:
            if self._relay is None:
                self._relay = RelayChannel(lambda: self._host_tools, self._host_call, self.tool_result_content)
                await self._relay.start()
            configs[HOST_SERVER] = self._relay.mcp_server(HOST_SERVER)
        launch_request = LaunchRequest(
            command=settings.command, scratch=self._scratch, builtin_approvals=self.builtin_approvals and not mapped,
            base_url=settings.base_url, model=settings.model, api_key=settings.api_key, home=settings.home,
            mcp_servers=configs, skills=self._skills,
        )
        launch = profile.launch(launch_request) if profile is not None else None
        argv = launch.argv if launch is not None else settings.command
        env = isolated_environ(launch, settings.env) if launch is not None else {**os.environ, **settings.env}
        argv, release = confined_agent(self._confinement, argv, env, settings, self._scratch,  # inside the OS sandbox
                                       self._relay.address if self._relay is not None else None)
        try:
            self._process = await AgentProcess.spawn(argv, env, self.cwd, AcpClient(self), settings.stderr,
                                                     on_exit=release)
        except AgentStartError as error:
            raise HarnessConfigurationError(str(error)) from error
        self._watcher = asyncio.ensure_future(self._watch(self._process))
        init = await self.conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False),
            client_info=Implementation(name="harness-acp", version="0.1.0"),
        )
        self._agent_caps = init.agent_capabilities
        servers = [acp_mcp_server(name, config) for name, config in configs.items()]
        http = getattr(getattr(self._agent_caps, "mcp_capabilities", None), "http", False)
        in_config = profile is not None and not profile.honours_mcp_servers
        if any(s.get("type") == "http" for s in settings.mcp_servers.values()) and not http and not in_config:
            raise HarnessCapabilityUnsupportedError(HARNESS_ID, f"HTTP MCP servers on agent {self.label!r}",
                                                    "it does not advertise mcpCapabilities.http")
        if self.acp_session_id is not None:
            if not getattr(self._agent_caps, "load_session", False):
                raise HarnessCapabilityUnsupportedError(HARNESS_ID, f"resuming a session on agent {self.label!r}",
                                                        "it does not advertise loadSession")
            self._loading = True
            try:
                response = await self.conn.load_session(cwd=str(self.cwd), session_id=self.acp_session_id,
                                                        mcp_servers=servers)
            except acp.RequestError as error:
                hint = (" (with base_url= the agent's sessions live in a scratch directory removed with the "
                        "session: give home= to resume them)" if self._writes_config and settings.home is None else "")
                raise HarnessConfigurationError(
                    f"acp: {self.label} could not load session {self.acp_session_id}: {error}{hint}") from error
            finally:
                self._loading = False
        else:
            response = await self.conn.new_session(cwd=str(self.cwd), mcp_servers=servers)
            self.acp_session_id = response.session_id
        if mapped is not None:
            modes = getattr(response, "modes", None)
            available = {m.id for m in getattr(modes, "available_modes", None) or []}
            if mapped not in available:
                raise HarnessCapabilityUnsupportedError(
                    HARNESS_ID, f"permission mode {self._permission_mode.value!r} on agent {self.label!r}",
                    f"permission_mode_mapping maps it to session mode {mapped!r}, which the session does not offer "
                    f"(offered: {', '.join(sorted(available)) or 'none'})")
            await self.conn.set_session_mode(session_id=self.acp_session_id, mode_id=mapped)

    async def _watch(self, process: AgentProcess) -> None:
        await process.exited.wait()
        if process is self._process:
            self.runtime_error = f"{self.label} (pid {process.pid}) {process.describe_exit()}"
            if self._turn is not None and not self._turn.done:
                self._turn.runtime_exited()

    def restart_before_next_prompt(self) -> None:
        """The agent answered a prompt with an error: start it afresh (``session/load``) for the next one.

        codex-acp 0.16 sometimes never answers the prompt after a failed one; a new process
        that loads the session does.
        """
        self._restart = True

    def is_noise(self, update: Any) -> bool:
        """True for an agent message chunk that is the agent's own banner or warning (see the profile)."""
        profile = self._settings.profile
        text = getattr(getattr(update, "content", None), "text", None)
        return profile is not None and isinstance(text, str) and profile.noise(text)

    def permission_call(self, tool_call: Any) -> Any:
        """The tool call an agent-specific permission request is about (see the profile), else ``tool_call``."""
        profile = self._settings.profile
        translated = profile.permission_call(tool_call) if profile is not None else None
        return translated if translated is not None else tool_call

    def describe_error(self, error: Exception) -> str:
        """An agent's JSON-RPC error as a message: its text, its data and the agent's last stderr line."""
        data = getattr(error, "data", None)
        detail = ""
        if isinstance(data, dict):
            detail = str(data.get("message") or data.get("details") or data)
        elif data is not None:
            detail = str(data)
        process = self._process
        tail = next((line for line in reversed(process.stderr_tail) if "ERROR" in line), "") if process else ""
        return f"{self.label}: {error}" + (f": {detail}" if detail else "") + (f" (stderr: {tail.strip()})" if tail else "")

    def describe_crash(self, error: BaseException) -> str:
        """A clear message about the agent dying mid-turn."""
        process = self._process
        detail = process.describe_exit() if process is not None else "is not running"
        return f"{self.label} exited unexpectedly ({type(error).__name__}: {error}); it {detail}; " \
               "the next prompt starts it again"

    async def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            await process.kill()

    async def cancel_turn(self, task: asyncio.Task[None] | None) -> None:
        """``session/cancel``; wait for the prompt to end, else kill the agent's process group."""
        process = self._process
        if process is not None and process.running and self.acp_session_id is not None:
            with contextlib.suppress(Exception):
                await process.conn.cancel(session_id=self.acp_session_id)
        if task is not None and not task.done():
            done, _ = await asyncio.wait({task}, timeout=self._settings.cancel_timeout)
            if not done:
                task.cancel()
                await self._kill()

    def on_update(self, session_id: str, update: Any) -> None:
        """Route a ``session/update`` to the running turn (history replayed by ``session/load`` is dropped)."""
        turn = self._turn
        if turn is not None and not turn.done and not self._loading:
            turn.deliver(update)

    async def on_permission(self, session_id: str, tool_call: Any, options: list[Any]) -> Any:
        """Route ``session/request_permission``; refused (fail closed) when no turn runs."""
        turn = self._turn
        if turn is None or turn.done:
            return permission_response(options, False)
        return await turn.request_permission(tool_call, options)

    async def _host_call(self, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
        turn = self._turn
        if turn is None or turn.done:
            return ToolOutput("No turn is running; the host tool call was refused.", is_error=True)
        return await turn.request_host_result(tool_name, arguments)

    def _file_written(self, path: str, kind: str) -> None:
        turn = self._turn
        if turn is not None and not turn.done:
            turn.file_written(path, kind)

    # -- AdapterSession --------------------------------------------------------------------

    def _check_usable(self, action: str) -> None:
        if self._destroyed:
            raise TurnStateError(f"acp session {self.session_id!r} is destroyed; cannot {action}")
        if self._turn is not None and not self._turn.done:
            raise TurnStateError(f"acp session {self.session_id!r} has an unfinished turn; cannot {action}")

    async def prompt(self, request: PromptRequest) -> AcpTurn:
        """Start a turn (``session/prompt``); a dead agent is restarted first.

        Raises:
            TurnStateError: the session is destroyed or a turn is unfinished.
        """
        self._check_usable("start a new turn")
        if request.host_tools:
            self._host_tools = tuple(request.host_tools)
        profile = self._settings.profile
        asks = profile.can_ask(self._writes_config) if profile is not None else True
        # pi's approval extension asks about every call, sometimes after pi-acp reported it running
        every = profile is not None and not profile.asks_permission and asks
        turn = AcpTurn(self, hold_pending=self.builtin_approvals and asks, hold_until_final=every)
        self._turn = turn
        if self._process is None or not self._process.running or self._restart:
            self._restart = False
            await self._kill()
            try:
                await self.open()
            except Exception as error:
                turn.fail_now(str(error), "runtime-start")
                return turn
        text = with_output_instruction(request.prompt, request.output_schema)  # structured output by instruction
        instructions = request.instructions if request.instructions is not None else self._instructions
        if self._first_prompt and instructions:
            text = f"<instructions>\n{instructions}\n</instructions>\n\n{text}"
        self._first_prompt = False
        turn.start(text)
        return turn

    async def resume_turn(self) -> AcpTurn:
        """Not supported: a pending ACP request cannot outlive the agent process."""
        raise HarnessCapabilityUnsupportedError(HARNESS_ID, "continuing a suspended turn in another process")

    async def suspend_turn(self) -> dict[str, Any]:
        """Not supported: answer the pending request in this process (``continue_generate``).

        Raises:
            HarnessCapabilityUnsupportedError: always.
        """
        raise HarnessCapabilityUnsupportedError(
            HARNESS_ID, "suspending a turn",
            f"{self.label} holds the pending request in its process; continue the turn in this process")

    async def compact(self) -> AcpTurn:
        """Not supported through ACP.

        Raises:
            HarnessCapabilityUnsupportedError: always.
        """
        raise HarnessCapabilityUnsupportedError(HARNESS_ID, "compact", "ACP has no compaction request")

    async def stop(self) -> dict[str, Any]:
        """Stop the agent and return ``{"acp_session_id", "cwd", "agent"}`` for ``resume_from``."""
        if self._turn is not None and not self._turn.done:
            await self._turn.abort()
        state = {_STATE_KEY: self.acp_session_id, "cwd": str(self.cwd), "agent": self.label}
        await self.destroy()
        return state

    async def destroy(self) -> None:
        """Abort any turn, kill the agent's process group, close the relay, remove scratch files. Idempotent."""
        if self._turn is not None and not self._turn.done:
            await self._turn.abort()
        self._destroyed = True
        await self._kill()
        relay, self._relay = self._relay, None
        if relay is not None:
            await relay.close()
        shutil.rmtree(self._scratch, ignore_errors=True)
