"""Starting one pi process for a session: extension, command line, the fail-closed check.

:func:`launch` writes the generated extension when the session needs one, builds the
``pi --mode rpc`` command line (:func:`~harness_pi._launch.rpc_argv`), starts
:class:`~harness_pi._rpc.PiProcess` and, when the extension is loaded, checks that pi
really loaded it (its marker command, RPC ``get_commands``) before any prompt: without the
gate no turn runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from harness_core import (
    BuiltinFilter,
    BuiltinFilterMode,
    HostToolSpec,
    RuntimeConfinement,
    split_mcp_name,
)

from ._builtins import BUILTINS
from ._confine import confined_argv
from ._extension import MARKER_COMMAND, extension_source, needed
from ._launch import PiHome, path_env, rpc_argv
from ._rpc import PiCommandError, PiProcess
from ._settings import PiSettings

__all__ = ["PiStartError", "children_gone", "excluded_natives", "launch"]


class PiStartError(Exception):
    """pi could not be started as the session needs it (the extension did not load, say)."""


def excluded_natives(builtin_filter: BuiltinFilter | None) -> list[str]:
    """What pi must not offer (``--exclude-tools``): the built-ins ``builtin_filter`` removes,
    and in a denylist its MCP entries (``mcp__<server>`` as the pattern ``mcp__<server>__*``)."""
    if builtin_filter is None:
        return []
    excluded = [tool.native_name for tool in BUILTINS if not builtin_filter.allows(tool.name)]
    if builtin_filter.mode is BuiltinFilterMode.INACTIVE:
        for entry in sorted(builtin_filter.names):
            parts = split_mcp_name(entry)
            if parts is not None:
                excluded.append(entry if parts[1] is not None else f"{entry}__*")
    return excluded


async def check_extension(process: PiProcess) -> None:
    """Fail closed: raise unless pi lists the extension's marker command (then pi is stopped).

    Raises:
        PiStartError: the extension did not load.
    """
    try:
        data = await process.request({"type": "get_commands"}, timeout=120)
        commands = data.get("commands") if isinstance(data, dict) else None
        names = {c.get("name") for c in commands if isinstance(c, dict)} if isinstance(commands, list) else set()
    except PiCommandError as error:
        names, problem = set(), str(error)
    else:
        problem = "its command is missing"
    if MARKER_COMMAND not in names:
        await process.close(grace=0)
        tail = "; ".join(process.stderr_tail)
        raise PiStartError(f"pi did not load the harness extension ({problem}); refusing to run without "
                           f"the approval gate" + (f"; stderr: {tail[-1500:]}" if tail else ""))


async def launch(prefix: Sequence[str], settings: PiSettings, home: PiHome, version: tuple[int, ...], cwd: Path,
                 *, gate: bool, builtin_filter: BuiltinFilter | None, host_tools: Sequence[HostToolSpec],
                 instructions: str | None, on_record: Callable[[dict[str, Any]], None],
                 on_exit: Callable[[int | None], None],
                 confinement: RuntimeConfinement | None = None) -> PiProcess:
    """Start pi for a session (see the module docs); inside ``confinement`` when given
    (:mod:`harness_pi._confine`: the whole pi process runs in the OS sandbox).

    Raises:
        OSError: pi could not be started.
        PiStartError: the generated extension did not load.
    """
    excluded = excluded_natives(builtin_filter)
    extension = needed(host_tools, gate=gate, builtin_filter=builtin_filter)
    if extension:
        home.write_extension(extension_source(host_tools, gate=gate, builtin_filter=builtin_filter))
    argv = rpc_argv(prefix, settings, home, session_file=home.session_file, excluded=excluded,
                    instructions=instructions, version=version, extra_tools=[t.name for t in host_tools],
                    extension=extension)
    release: Callable[[], None] = _nothing
    if confinement is not None:
        confined = confined_argv(confinement, argv, settings, home, path_env(settings))
        argv, release = list(confined.argv), confined.close

    def exited(returncode: int | None) -> None:
        release()  # the loopback bridge of a confined pi
        on_exit(returncode)

    process = PiProcess(argv, home.environ(settings), cwd, on_record, exited, settings.stderr, marker=home.marker)
    try:
        await process.start()
    except BaseException:
        release()
        raise
    if extension:
        await check_extension(process)
    return process


def _nothing() -> None:
    return None


async def children_gone(process: PiProcess, timeout: float) -> None:
    """Wait up to ``timeout`` seconds until pi's processes are only pi itself."""
    with anyio.move_on_after(timeout):
        for _ in itertools.count():
            if not [pid for pid in process.group_pids() if pid != process.pid]:
                return
            await anyio.sleep(0.05)
