"""LocalSandbox misuse: clear errors at the boundary, never a traceback from deep inside.

A file where a directory should be is "not a directory" (for reads and writes alike), not
a link swapped in; arguments of the wrong type are a TypeError naming the argument; a
program that does not exist is a command result, as a shell would give it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness_core import LocalSandbox


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f").write_text("a file, not a directory\n")
    return root


@pytest.fixture
def sandbox(workspace: Path) -> LocalSandbox:
    return LocalSandbox(workspace)


# -- a file where a directory should be ---------------------------------------------------


@pytest.mark.anyio
async def test_writing_under_a_regular_file_says_not_a_directory(sandbox: LocalSandbox, workspace: Path) -> None:
    with pytest.raises(NotADirectoryError, match=r"'d/f/x': a component of the path \('d/f'\) is not a directory"):
        await sandbox.write_text_file("d/f/x", "x")
    with pytest.raises(NotADirectoryError, match="is not a directory"):
        sandbox.write_bytes("d/f/deeper/x", b"x")
    assert (workspace / "d" / "f").read_text() == "a file, not a directory\n"


@pytest.mark.anyio
async def test_reading_under_a_regular_file_says_not_a_directory(sandbox: LocalSandbox) -> None:
    with pytest.raises(NotADirectoryError, match=r"\('d/f'\) is not a directory"):
        await sandbox.read_text_file("d/f/x")
    with pytest.raises(NotADirectoryError):
        sandbox.read_bytes("d/f/x")


def test_a_directory_swapped_for_a_file_after_the_check_is_not_a_directory(
    sandbox: LocalSandbox, workspace: Path
) -> None:
    (workspace / "box").mkdir()
    real_resolve = sandbox.resolve

    def racing_resolve(path: str | os.PathLike[str]) -> Path:
        resolved = real_resolve(path)
        (workspace / "box").rmdir()
        (workspace / "box").write_text("now a file")
        return resolved

    sandbox.resolve = racing_resolve  # type: ignore[method-assign]
    with pytest.raises(NotADirectoryError, match=r"\('box'\) is not a directory"):
        sandbox.write_bytes("box/x", b"x")


def test_a_directory_swapped_for_a_link_is_still_refused_as_a_link(sandbox: LocalSandbox, workspace: Path,
                                                                   tmp_path: Path) -> None:
    """ENOTDIR from O_NOFOLLOW on a linked directory component stays a refused race."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "box").mkdir()
    real_resolve = sandbox.resolve

    def racing_resolve(path: str | os.PathLike[str]) -> Path:
        resolved = real_resolve(path)
        (workspace / "box").rmdir()
        (workspace / "box").symlink_to(outside, target_is_directory=True)
        return resolved

    sandbox.resolve = racing_resolve  # type: ignore[method-assign]
    with pytest.raises(PermissionError, match="changed into a symbolic link"):
        sandbox.write_bytes("box/x", b"x")
    assert not (outside / "x").exists()


# -- arguments of the wrong type ----------------------------------------------------------


@pytest.mark.anyio
async def test_text_content_must_be_str(sandbox: LocalSandbox, workspace: Path) -> None:
    with pytest.raises(TypeError, match=r"write_text_file: content must be str, got bytes \(use write_bytes"):
        await sandbox.write_text_file("p.txt", b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="content must be str, got NoneType"):
        await sandbox.write_text_file("p.txt", None)  # type: ignore[arg-type]
    assert not (workspace / "p.txt").exists()


def test_bytes_data_must_be_bytes(sandbox: LocalSandbox) -> None:
    with pytest.raises(TypeError, match=r"write_bytes: data must be bytes, got str \(use write_text_file"):
        sandbox.write_bytes("p.bin", "text")  # type: ignore[arg-type]
    assert sandbox.write_bytes("p.bin", bytearray(b"ok")) is True


@pytest.mark.anyio
async def test_paths_must_be_text(sandbox: LocalSandbox) -> None:
    with pytest.raises(TypeError, match=r"path must be a str or an os.PathLike\[str\], got bytes b'd/f'"):
        await sandbox.read_text_file(b"d/f")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got int"):
        sandbox.resolve(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got bytes"):
        await sandbox.write_text_file(b"new.txt", "x")  # type: ignore[arg-type]
    assert await sandbox.read_text_file(Path("d") / "f") == "a file, not a directory\n"


@pytest.mark.anyio
async def test_command_must_be_text_or_a_list_of_text(sandbox: LocalSandbox) -> None:
    with pytest.raises(TypeError, match=r"command must be a str .* or a list of str .*, got bytes"):
        await sandbox.run_command(b"ls")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"command\[1\] must be a str, got bytes b'x'"):
        await sandbox.run_command(["echo", b"x"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="timeout must be a number of seconds"):
        await sandbox.run_command("true", timeout="5")  # type: ignore[arg-type]
    result = await sandbox.run_command(["cat", Path("d") / "f"])  # type: ignore[list-item]
    assert result.stdout == "a file, not a directory\n"


# -- programs that cannot be started ------------------------------------------------------


@pytest.mark.anyio
async def test_a_missing_program_is_exit_127_like_a_shell(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_command(["missing-binary-for-harness-tests", "--flag"])
    assert result.exit_code == 127 and not result.timed_out
    assert result.stdout == ""
    assert result.stderr == "missing-binary-for-harness-tests: command not found\n"
    # The shell says the same for a string command.
    shell = await sandbox.run_command("missing-binary-for-harness-tests")
    assert shell.exit_code == 127 and "command not found" in shell.stderr


@pytest.mark.anyio
async def test_a_program_that_is_not_executable_is_exit_126(sandbox: LocalSandbox, workspace: Path) -> None:
    script = workspace / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    if os.access(script, os.X_OK):  # pragma: no cover - root may execute anything
        pytest.skip("this user may execute files without the execute bit")
    result = await sandbox.run_command([str(script)])
    assert result.exit_code == 126
    assert result.stderr == f"{script}: permission denied\n"


@pytest.mark.anyio
async def test_a_vanished_workspace_is_not_reported_as_a_missing_program(tmp_path: Path) -> None:
    root = tmp_path / "gone"
    root.mkdir()
    sandbox = LocalSandbox(root)
    root.rmdir()
    with pytest.raises(NotADirectoryError, match="workspace root no longer exists"):
        await sandbox.run_command(["true"])
