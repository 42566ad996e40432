"""The Codex adapter and its factory, :func:`codex`."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import (
    HarnessConfigurationError,
    McpServerConfig,
    StartRequest,
    runtime_confinement,
)

from ._capabilities import CAPABILITIES
from ._sandboxing import check_reachable
from ._session import CodexSession
from ._settings import HARNESS_ID, CodexSettings

__all__ = ["CodexAdapter", "codex", "find_codex"]


def find_codex(codex_path: str | Path | None = None) -> Path | None:
    """The Codex CLI the adapter would run: ``codex_path``, else ``codex`` on ``PATH``; ``None`` if neither."""
    if codex_path is not None:
        path = Path(codex_path)
        return path if path.is_file() else None
    found = shutil.which("codex")
    return Path(found) if found else None


class CodexAdapter:
    """Drives the real Codex CLI through ``codex app-server`` (JSON-RPC over stdio).

    Built-in approvals are native (``untrusted`` policy in the ``read-only`` sandbox asks
    before every command and patch); built-in filtering goes through those approvals (the
    core denies inactive built-ins without approval parts), since Codex cannot switch
    ``exec_command`` or ``apply_patch`` off per session.

    Attributes:
        harness_id: ``"codex"``.
        settings: the checked factory settings.
    """

    harness_id: str = HARNESS_ID
    supports_builtin_approvals: bool = True
    supports_builtin_filtering: bool = False
    capabilities = CAPABILITIES

    def __init__(self, settings: CodexSettings) -> None:
        self.settings = settings

    @property
    def mcp_servers(self) -> Mapping[str, McpServerConfig]:
        """The session MCP servers, by name (lets ``active_tools`` / ``inactive_tools`` name them)."""
        return self.settings.mcp_servers

    async def start(self, request: StartRequest) -> CodexSession:
        """Open a session (new, ``resume_from`` or ``continue_from``); the CLI starts at the first turn.

        Raises:
            HarnessConfigurationError: no Codex CLI, a missing workspace or unreadable state.
            HarnessCapabilityUnsupportedError: a sandbox without runtime confinement, or one
                Codex could not reach its model from (see :mod:`harness_codex._sandboxing`).
        """
        confinement = runtime_confinement(self.harness_id, request.sandbox)  # never run unconfined silently
        check_reachable(confinement, self.settings)
        codex = find_codex(self.settings.codex_path)
        if codex is None:
            raise HarnessConfigurationError(
                "codex: no Codex CLI found (install @openai/codex so `codex` is on PATH, or pass codex(codex_path=...))")
        return CodexSession(self.settings, codex, request, confinement=confinement)

    def __repr__(self) -> str:
        return f"<CodexAdapter {self.settings.model or 'default model'}>"


def codex(**settings: Any) -> CodexAdapter:
    """Build a Codex adapter (harness id ``codex``).

    Keyword Args:
        model (str): the model id (``config.toml`` ``model``); Codex's default otherwise.
            Codex offers ``apply_patch`` only for models it knows (``gpt-5.5``...).
        base_url (str): a Responses-compatible endpoint ending in ``/v1`` (default OpenAI's).
        api_key (str): its key (default: ``OPENAI_API_KEY`` of this process), passed to the
            CLI in one variable only.
        mcp_servers (dict): ``{name: {"command", "args", "env", "cwd"}}`` (stdio) or
            ``{name: {"type": "http", "url", "headers"}}``; written to the session's
            ``config.toml``; their tools appear as ``mcp__<name>__<tool>``.
        config (dict): more ``config.toml`` keys (dotted keys allowed), overriding the adapter's.
        codex_path (path): the ``codex`` executable (default: ``codex`` on ``PATH``).
        home, codex_home (path): the CLI's ``HOME`` / ``CODEX_HOME`` (default: a temporary
            folder per session, deleted on destroy unless state refers to it).
        cwd (path): the workspace when the session has no sandbox (default: the current directory).
        env (dict[str, str]): extra environment variables for the CLI.
        startup_timeout (float): seconds for the app-server handshake (default 60).
        interrupt_timeout (float): seconds an abort waits before killing the process group (default 10).
        web_search (bool): offer Codex's ``web_search`` (default False: disabled in config).

    Raises:
        HarnessConfigurationError: an unknown setting or a bad value, naming it.
    """
    return CodexAdapter(CodexSettings.from_kwargs(**settings))
