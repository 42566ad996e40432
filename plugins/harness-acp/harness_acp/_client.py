"""The ACP client the agent talks to: routes its requests to the session.

Implements the SDK's ``Client`` protocol: ``session/update`` notifications and
``session/request_permission`` go to the session (and its current turn); ``fs/*`` to
:class:`~harness_acp._fs.WorkspaceFiles`. Terminal methods are not advertised and answer
"method not found"; so do unknown extension methods.
"""

from __future__ import annotations

from typing import Any, Protocol

from ._fs import WorkspaceFiles

__all__ = ["AcpClient", "SessionRouter"]


class SessionRouter(Protocol):
    """What the client needs from the session."""

    files: WorkspaceFiles

    def on_update(self, session_id: str, update: Any) -> None:
        """A ``session/update`` notification (must not block)."""
        ...

    async def on_permission(self, session_id: str, tool_call: Any, options: list[Any]) -> Any:
        """A ``session/request_permission`` request; returns the SDK response."""
        ...


def _not_found(method: str) -> Exception:
    import acp

    return acp.RequestError.method_not_found(method)


class AcpClient:
    """The SDK ``Client`` of one agent connection (see the module docstring)."""

    def __init__(self, router: SessionRouter) -> None:
        self._router = router

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Route a ``session/update``."""
        self._router.on_update(session_id, update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        """Route ``session/request_permission``; the host decides."""
        return await self._router.on_permission(session_id, tool_call, options)

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> Any:
        """``fs/read_text_file`` inside the workspace."""
        return await self._router.files.read(path, line, limit)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        """``fs/write_text_file`` inside the workspace."""
        return await self._router.files.write(path, content)

    async def create_terminal(self, *args: Any, **kwargs: Any) -> Any:
        """Not advertised: "method not found"."""
        raise _not_found("terminal/create")

    async def terminal_output(self, *args: Any, **kwargs: Any) -> Any:
        """Not advertised."""
        raise _not_found("terminal/output")

    async def release_terminal(self, *args: Any, **kwargs: Any) -> Any:
        """Not advertised."""
        raise _not_found("terminal/release")

    async def wait_for_terminal_exit(self, *args: Any, **kwargs: Any) -> Any:
        """Not advertised."""
        raise _not_found("terminal/wait_for_exit")

    async def kill_terminal(self, *args: Any, **kwargs: Any) -> Any:
        """Not advertised."""
        raise _not_found("terminal/kill")

    async def create_elicitation(self, *args: Any, **kwargs: Any) -> Any:
        """Not advertised."""
        raise _not_found("elicitation/create")

    async def complete_elicitation(self, *args: Any, **kwargs: Any) -> None:
        """Ignored."""

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Unknown extension methods: "method not found"."""
        raise _not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """Extension notifications are ignored."""

    def on_connect(self, conn: Any) -> None:
        """Nothing to do."""

