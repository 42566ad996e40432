"""``fs/read_text_file`` and ``fs/write_text_file`` served from the session sandbox.

Every path goes through the sandbox (:class:`~harness_core.LocalSandbox` when the session
has none), which resolves ``..`` and symbolic links and refuses anything outside the
workspace with ``PermissionError``; the adapter answers such a request with a JSON-RPC
error and never touches the file. A write reports the change so the turn can emit a
``fileChange`` part.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness_core import LocalSandbox, Sandbox

__all__ = ["WorkspaceFiles"]


class WorkspaceFiles:
    """The client's file system, confined to the sandbox.

    Args:
        sandbox: the session sandbox (its ``resolve`` confines paths).
        on_write: called with ``(path, kind)`` after a successful write, ``kind`` being
            ``"created"`` or ``"modified"``.
        may_write: ``(resolved path, resolve)`` -> whether the write is allowed
            (:mod:`._write_grants`: with approvals, only a path an approved call named).
    """

    def __init__(self, sandbox: Sandbox | LocalSandbox, on_write: Callable[[str, str], None],
                 may_write: Callable[[Path, Callable[[str], Path]], bool]) -> None:
        self._sandbox = sandbox
        self._on_write = on_write
        self._may_write = may_write

    def _refuse(self, method: str, path: str, error: Exception) -> Exception:
        import acp

        return acp.RequestError.invalid_params({"method": method, "path": path, "details": str(error)})

    async def read(self, path: str, line: int | None = None, limit: int | None = None) -> Any:
        """Answer ``fs/read_text_file``; ``line`` is 1-based, ``limit`` a line count.

        Raises:
            acp.RequestError: the path is outside the workspace or cannot be read.
        """
        import acp

        try:
            self._sandbox.resolve(path)
            text = await self._sandbox.read_text_file(path)
        except (OSError, ValueError, TypeError) as error:
            raise self._refuse("fs/read_text_file", path, error) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            end = start + limit if limit is not None else None
            text = "".join(lines[start:end])
        return acp.ReadTextFileResponse(content=text)

    async def write(self, path: str, content: str) -> Any:
        """Answer ``fs/write_text_file``.

        Raises:
            acp.RequestError: the path is outside the workspace or cannot be written.
        """
        import acp

        try:
            target = self._sandbox.resolve(path)
            if not self._may_write(target, self._sandbox.resolve):
                raise PermissionError("no approved permission request of this turn names this file; "
                                      "ask session/request_permission about the edit first")
            existed = target.exists()
            await self._sandbox.write_text_file(path, content)
        except (OSError, ValueError, TypeError) as error:
            raise self._refuse("fs/write_text_file", path, error) from None
        self._on_write(path, "modified" if existed else "created")
        return acp.WriteTextFileResponse()
