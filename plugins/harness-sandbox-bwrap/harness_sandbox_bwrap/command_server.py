"""The command server that runs *inside* one long-lived bubblewrap (its source is passed to
``python3 -I -S -c SOURCE HOST_PID_NS``; it imports nothing but the standard library).

Protocol (stdin / stdout of the server, one command at a time):

* first frame: ``R`` (ready, empty payload), or ``F`` (refused: the reason, then exit);
* request: one JSON line ``{"argv": [...], "env": {...}, "cwd": path, "timeout": seconds,
  "cap": bytes}``;
* replies: frames ``<kind:1 byte><length:4 bytes big-endian><payload>``, kind ``O`` (stdout
  bytes), ``E`` (stderr bytes), then one ``X`` whose payload is JSON ``{"code": int | null,
  "timed_out": bool, "dropped": [stdout, stderr], "clean": bool}``.

Guards (fail closed): the server refuses to start unless it is in a PID namespace other
than the host's (``HOST_PID_NS``, the inode of the host's ``/proc/self/ns/pid``) and is
that namespace's init, PID 1 (``bwrap --as-pid-1``); it only ever signals its own
descendants. As PID 1 it cannot be killed or stopped from inside its namespace (the
kernel drops signals to a namespace's init that it has no handler for, SIGKILL and SIGSTOP
always), so ``kill -9 -1`` in a command kills that command's processes, not the server.
It makes itself non-dumpable, so a command (same uid, no capabilities) cannot ptrace it or
open its ``/proc/<pid>/fd`` pipes to the host to forge frames or read later requests.

Each command is spawned (``posix_spawn``) as a new session (``setsid``) in ``cwd``, stdin ``/dev/null``, its
stdout and stderr pipes streamed back as they come, at most ``cap`` bytes each (the rest
counted in ``dropped``). The server is init, so everything a command starts (double-forked
or not) stays its descendant; when the command exits or passes its timeout
the server kills **all** its descendants before replying: each command ends with
everything it started, as a bubblewrap of its own would. ``clean`` is false when some
could not be killed (a fork bomb): the host then discards the whole bubblewrap. A program
that cannot be executed gets exit code 127 (not found) or 126 and ``<program>: <reason>``
on stderr, like a shell. A malformed request ends the server (the host sees it die).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import struct
import sys
import time
from typing import Any

_PR_SET_DUMPABLE = 4
_CHUNK = 65536


def _frame(out: Any, kind: bytes, payload: bytes) -> None:
    out.write(kind + struct.pack(">I", len(payload)) + payload)


def _descendants(me: int) -> list[int]:
    """The live processes whose parent chain reaches ``me`` (read from ``/proc/*/stat``)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parents[int(name)] = int(fields[1])
    found: list[int] = []
    frontier = {me}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier}
        found += frontier
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _sweep(me: int) -> bool:
    """SIGKILL every descendant of this server and reap them; False if some survived."""
    for _ in range(200):
        others = _descendants(me)
        for pid in others:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _reap()
        if not others:
            return True
        time.sleep(0.001)
    return False


def _find(program: str, path: str) -> str | None:
    """``program`` looked up on ``path`` (a command's ``PATH``) like a shell, or ``None``."""
    if "/" in program:
        return program
    for folder in path.split(":"):
        candidate = os.path.join(folder or ".", program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _spawn(argv: list[str], env: dict[str, str], out_w: int, err_w: int) -> int | str:
    """Start ``argv`` as a new session with stdin ``/dev/null``: its pid, or a shell-style error.

    ``posix_spawn`` (vfork and exec, no Python in the child) costs a fraction of
    ``os.fork``; the child gets only fds 0-2 (every fd of the server is non-inheritable)
    and default SIGCHLD/SIGPIPE dispositions with no signal blocked.
    """
    program = _find(argv[0], env.get("PATH", "/usr/bin:/bin"))
    if program is None:
        return f"{argv[0]}: command not found\n"
    null = os.open("/dev/null", os.O_RDONLY)
    try:
        return os.posix_spawn(
            program, argv, env,
            file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, out_w, 1),
                          (os.POSIX_SPAWN_DUP2, err_w, 2)],
            setsid=True, setsigmask=(), setsigdef=(signal.SIGCHLD, signal.SIGPIPE),
        )
    except OSError as error:
        return f"{argv[0]}: {error.strerror or error}\n"
    finally:
        os.close(null)


def _run(request: dict[str, Any], out: Any, wake: int, me: int) -> None:
    argv, env, cwd = [str(a) for a in request["argv"]], dict(request["env"]), str(request["cwd"])
    if not argv:
        raise ValueError("empty argv")
    deadline = time.monotonic() + float(request["timeout"])
    cap = int(request["cap"])
    os.chdir(cwd)  # inherited by the command
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    child = _spawn(argv, env, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    if isinstance(child, str):  # not started: report it as a shell would
        os.close(out_r)
        os.close(err_r)
        _frame(out, b"E", child.encode()[:cap])
        missing = child.endswith(": command not found\n")
        status: dict[str, object] = {"code": 127 if missing else 126, "timed_out": False,
                                     "dropped": [0, 0], "clean": True}
        _frame(out, b"X", json.dumps(status).encode())
        out.flush()
        return
    streams = {out_r: b"O", err_r: b"E"}
    sent = {b"O": 0, b"E": 0}
    dropped = {b"O": 0, b"E": 0}
    code: int | None = None
    timed_out = False
    clean = True
    while True:
        if code is None:
            try:
                pid, raw = os.waitpid(child, os.WNOHANG)
            except ChildProcessError:  # reaped by a sweep
                pid, raw = child, 0
            if pid == child:
                code = os.waitstatus_to_exitcode(raw)
                code = 128 - code if code < 0 else code
                clean = _sweep(me) and clean  # what it left behind dies with it
        if code is not None and not streams:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0 and not timed_out and code is None:
            timed_out = True
            clean = _sweep(me)
            continue
        wait = 5.0 if code is not None else max(remaining, 0.0) if not timed_out else 0.05
        ready, _, _ = select.select([*streams, wake], [], [], wait)
        if not ready and code is not None:
            break  # pipes held by nothing we can still kill
        for fd in ready:
            if fd == wake:
                os.read(wake, 4096)
                continue
            data = os.read(fd, _CHUNK)
            if not data:
                os.close(fd)
                del streams[fd]
                continue
            kind = streams[fd]
            kept = data[:max(cap - sent[kind], 0)]
            if kept:
                _frame(out, kind, kept)
                sent[kind] += len(kept)
            dropped[kind] += len(data) - len(kept)
        out.flush()
    for fd in streams:
        os.close(fd)
    status = {"code": None if timed_out else code, "timed_out": timed_out,
              "dropped": [dropped[b"O"], dropped[b"E"]], "clean": clean}
    _frame(out, b"X", json.dumps(status).encode())
    out.flush()


def _refusal(host_pid_ns: int) -> str | None:
    """Why this process must not serve (it could signal host processes), or ``None``."""
    if os.stat("/proc/self/ns/pid").st_ino == host_pid_ns:
        return "the command server is in the host's PID namespace"
    if os.getpid() != 1:
        return "the command server is not its PID namespace's init (PID 1)"
    return None


def main() -> None:
    """Serve commands read from stdin until it closes (``sys.argv[1]``: the host PID namespace)."""
    out = sys.stdout.buffer
    reason = _refusal(int(sys.argv[1])) if len(sys.argv) > 1 and sys.argv[1].isdigit() else "no host PID namespace"
    if reason is not None:
        _frame(out, b"F", reason.encode())
        out.flush()
        sys.exit(3)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        _frame(out, b"F", b"prctl failed")
        out.flush()
        sys.exit(3)
    for name in os.listdir("/proc/self/fd"):  # nothing but 0-2 may reach a command
        if int(name) > 2:
            with contextlib.suppress(OSError):
                os.set_inheritable(int(name), False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    for sig in (signal.SIGPIPE, signal.SIGINT):  # as init: ignored when sent from inside
        signal.signal(sig, signal.SIG_DFL)
    me = os.getpid()
    _frame(out, b"R", b"")
    out.flush()
    for line in sys.stdin.buffer:
        if line.strip():
            _run(json.loads(line), out, wake_r, me)


if __name__ == "__main__":
    main()
