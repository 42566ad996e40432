"""Issue 16 item 8 and the one path-confinement helper: paths resolve as the OS resolves them.

``<root>/jump/../secret.txt`` where ``jump`` is a link goes where the link leads (the OS
applies ``..`` to the link's target), absolute or relative; multiply linked files are
neither read nor written; link loops, ``/proc/self`` entries and a racing link swap never
reach a file outside the workspace.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import pytest

from harness_core import LocalSandbox, path_in_workspace, paths_outside, resolve_like_os


@pytest.fixture
def layout(tmp_path: Path) -> tuple[LocalSandbox, Path, Path]:
    """A workspace ``ws`` (holding its own ``secret.txt``) and an outside ``out/secret.txt``;
    ``ws/jump`` links to ``out/sub``, so ``jump/..`` is ``out``."""
    workspace, outside = tmp_path / "ws", tmp_path / "out"
    (outside / "sub").mkdir(parents=True)
    workspace.mkdir()
    (outside / "secret.txt").write_text("outside secret")
    (workspace / "secret.txt").write_text("workspace file")
    (workspace / "jump").symlink_to(outside / "sub")
    return LocalSandbox(workspace), workspace, outside


@pytest.mark.parametrize("spelling", ["absolute", "relative"])
def test_dotdot_after_a_link_follows_the_link_like_the_os(layout: tuple[LocalSandbox, Path, Path],
                                                           spelling: str) -> None:
    sandbox, workspace, outside = layout
    path = f"{workspace}/jump/../secret.txt" if spelling == "absolute" else "jump/../secret.txt"
    assert Path(os.path.realpath(workspace / "jump" / ".." / "secret.txt")) == outside / "secret.txt"  # the OS view
    with pytest.raises(PermissionError, match="outside the workspace"):
        sandbox.read_bytes(path)
    with pytest.raises(PermissionError, match="outside the workspace"):
        sandbox.write_bytes(path, b"overwritten")
    assert (outside / "secret.txt").read_text() == "outside secret"
    assert (workspace / "secret.txt").read_text() == "workspace file"
    assert not path_in_workspace(path, workspace)


def test_hard_link_to_an_outside_file_is_neither_read_nor_written(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, outside = layout
    os.link(outside / "secret.txt", workspace / "linked.txt")
    with pytest.raises(PermissionError, match="2 hard links"):
        sandbox.read_bytes("linked.txt")
    with pytest.raises(PermissionError, match="2 hard links"):
        sandbox.write_bytes("linked.txt", b"overwritten")
    assert (outside / "secret.txt").read_text() == "outside secret"
    # an ordinary file (one link) is unaffected
    sandbox.write_bytes("plain.txt", b"fine")
    assert sandbox.read_bytes("plain.txt") == b"fine"


def test_link_loops_are_a_clear_error_and_never_inside(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "a").symlink_to("b")
    (workspace / "b").symlink_to("a")
    (workspace / "self").symlink_to("self/x")
    for path in ("a", "b/c", "self"):
        with pytest.raises(OSError) as caught:
            sandbox.read_bytes(path)
        assert caught.value.errno == errno.ELOOP
        assert not path_in_workspace(path, workspace)


def test_proc_self_cwd_is_the_runtime_working_directory(layout: tuple[LocalSandbox, Path, Path]) -> None:
    _, workspace, _ = layout
    assert resolve_like_os("/proc/self/cwd/secret.txt", cwd=workspace) == workspace / "secret.txt"
    assert path_in_workspace("/proc/self/cwd/secret.txt", workspace)
    assert not path_in_workspace("/proc/self/cwd/../out/secret.txt", workspace)
    assert not path_in_workspace("/proc/thread-self/cwd/jump/../secret.txt", workspace)
    assert path_in_workspace(f"/proc/self/root{workspace}/x", workspace)
    assert paths_outside(["/proc/self/fd/3", "/dev/fd/3", "/proc/self/exe", "ok.txt", "/etc/passwd"],
                         workspace) == ["/proc/self/fd/3", "/dev/fd/3", "/proc/self/exe", "/etc/passwd"]


def test_a_link_racing_the_write_never_reaches_outside(layout: tuple[LocalSandbox, Path, Path]) -> None:
    """A thread swaps ``ws/d`` between a directory and a link to ``out`` while writes run:
    every write lands inside or is refused; the outside file is never created."""
    sandbox, workspace, outside = layout
    stop = threading.Event()

    def swap() -> None:
        target = workspace / "d"
        deadline = time.monotonic() + 5
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                if target.is_symlink():
                    target.unlink()
                    target.mkdir()
                else:
                    if target.exists():
                        for child in target.iterdir():
                            child.unlink()
                        target.rmdir()
                    target.symlink_to(outside)
            except OSError:
                pass

    racer = threading.Thread(target=swap)
    racer.start()
    outcomes = {"written": 0, "refused": 0}
    try:
        for _ in range(400):
            try:
                sandbox.write_bytes("d/raced.txt", b"x")
                outcomes["written"] += 1
            except OSError:
                outcomes["refused"] += 1
    finally:
        stop.set()
        racer.join()
    assert not (outside / "raced.txt").exists(), outcomes
    assert outcomes["refused"] > 0, outcomes  # the race did happen
