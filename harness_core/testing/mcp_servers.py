"""Real MCP servers for tests: one tool set, served over stdio or streamable HTTP.

The servers are written with the ``mcp`` SDK (``MCPServer``, formerly FastMCP) and run as
their own processes, so an adapter's MCP client talks to them exactly as to any server:

* :func:`stdio_server_config` returns the ``mcp_servers`` entry that starts the stdio server
  (``python -m harness_core.testing.mcp_servers stdio``);
* :class:`HttpMcpServer` starts the streamable-HTTP server on ``127.0.0.1`` (a free port)
  and stops it (``with HttpMcpServer() as server: server.url``).

Tools (MCP annotations in brackets):

* ``echo(text)`` -> ``"echo: <text>"``;
* ``fail(message)`` -> an error result (``isError: true``) whose text holds ``message``;
* ``slow_read(label, seconds)`` [readOnlyHint] -> sleeps, then ``{"label", "start", "end"}``
  as structured content (wall-clock seconds), to show read-only calls running in parallel;
* ``write_note(text)`` [destructiveHint] -> appends ``text`` to ``notes.txt`` in the
  server's working directory (an edit: needs approval under ``ask`` modes);
* ``picture()`` -> a 1x1 PNG image block and a text block;
* ``env_has(key)`` [readOnlyHint] -> ``"set"`` / ``"unset"`` (never the value);
* ``server_pid()`` -> the server's process id, to kill it mid-session.

Importing this module needs nothing beyond ``harness_core``; running a server needs the
``mcp`` package (``mcp>=2.3``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["PNG_1X1", "HttpMcpServer", "main", "stdio_server_config"]

PNG_1X1 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
"""The base64 PNG the ``picture`` tool returns."""


def stdio_server_config(*, env: dict[str, str] | None = None, cwd: str | None = None,
                        python: str | None = None) -> dict[str, Any]:
    """The ``mcp_servers`` entry of the stdio test server.

    Args:
        env: extra environment variables for the server process.
        cwd: its working directory.
        python: the interpreter (default: this one).
    """
    config: dict[str, Any] = {"command": python or sys.executable,
                              "args": ["-m", "harness_core.testing.mcp_servers", "stdio"]}
    if env:
        config["env"] = dict(env)
    if cwd:
        config["cwd"] = cwd
    return config


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpMcpServer:
    """The streamable-HTTP test server, in its own process on ``127.0.0.1``.

    Attributes:
        url: the MCP endpoint (``http://127.0.0.1:<port>/mcp``), set once started.
        process: the server process while it runs.

    Raises:
        RuntimeError: the server did not accept connections within ``timeout`` seconds.
    """

    def __init__(self, *, cwd: str | os.PathLike[str] | None = None, timeout: float = 60.0) -> None:
        self._cwd = cwd
        self._timeout = timeout
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> HttpMcpServer:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "harness_core.testing.mcp_servers", "http", str(self.port)],
            cwd=self._cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the HTTP MCP test server exited with code {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.__exit__(None, None, None)
        raise RuntimeError(f"the HTTP MCP test server did not listen on port {self.port} within {self._timeout} s")

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _build_server() -> Any:
    import anyio
    from mcp.server.mcpserver import Image, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    server = MCPServer("harness-test")

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Always fails with the message.")
    def fail(message: str) -> str:
        raise ToolError(f"failed on purpose: {message}")

    @server.tool(description="Wait, then report when it started and ended.",
                 annotations=ToolAnnotations(read_only_hint=True))
    async def slow_read(label: str, seconds: float = 1.0) -> dict[str, Any]:
        start = time.time()
        await anyio.sleep(seconds)
        return {"label": label, "start": start, "end": time.time()}

    @server.tool(description="Append a note to notes.txt.", annotations=ToolAnnotations(destructive_hint=True))
    def write_note(text: str) -> str:
        with Path("notes.txt").open("a", encoding="utf-8") as handle:
            handle.write(text + "\n")
        return "noted"

    @server.tool(description="Return a tiny picture.", structured_output=False)
    def picture() -> list[Any]:
        import base64
        return ["a 1x1 picture", Image(data=base64.b64decode(PNG_1X1), format="png")]

    @server.tool(description="Whether an environment variable is set (never its value).",
                 annotations=ToolAnnotations(read_only_hint=True))
    def env_has(key: str) -> str:
        return "set" if os.environ.get(key) else "unset"

    @server.tool(description="The server's process id.", annotations=ToolAnnotations(read_only_hint=True))
    def server_pid() -> int:
        return os.getpid()

    return server


def main(argv: list[str] | None = None) -> None:
    """``python -m harness_core.testing.mcp_servers stdio`` or ``... http <port>``."""
    args = sys.argv[1:] if argv is None else argv
    server = _build_server()
    if args[:1] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(args[1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
