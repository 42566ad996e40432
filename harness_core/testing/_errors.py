"""Exceptions raised by the scripted model servers."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ScriptError", "ToolNotOfferedError"]


class ScriptError(ValueError):
    """A script is malformed or cannot answer a request.

    ``path``, ``line`` and ``column`` (1-based) locate the problem when it comes
    from a script file; they are ``None`` otherwise. ``str(error)`` reads
    ``"<path>:<line>:<column>: <what is wrong>"`` when the location is known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return where + self.message


class ToolNotOfferedError(LookupError):
    """A scripted tool call names a tool that the request did not offer.

    ``name`` is the name the script used; ``offered`` the tool names the
    request carried, in request order.
    """

    def __init__(self, name: str, offered: Sequence[str]) -> None:
        self.name = name
        self.offered = tuple(offered)
        listed = ", ".join(self.offered) if self.offered else "(no tools)"
        super().__init__(
            f"scripted tool call {name!r} does not match any tool the request offered; "
            f"offered: {listed}"
        )
