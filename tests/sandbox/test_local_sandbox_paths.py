"""LocalSandbox path confinement, attacked with every kind of escape."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from harness_core import LocalSandbox, Sandbox, SandboxView


@pytest.fixture
def layout(tmp_path: Path) -> tuple[LocalSandbox, Path, Path]:
    """A workspace and, beside it, an ``outside`` directory holding a secret."""
    workspace = tmp_path / "ws"
    outside = tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret")
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('hi')\n")
    return LocalSandbox(workspace), workspace, outside


def test_relative_paths_resolve_inside(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    assert sandbox.resolve("src/app.py") == workspace.resolve() / "src" / "app.py"
    assert sandbox.resolve("") == sandbox.root == workspace.resolve()
    assert sandbox.resolve(".") == sandbox.root
    assert sandbox.resolve("src/../src/./app.py") == workspace.resolve() / "src" / "app.py"
    assert sandbox.resolve("new/dir/file.txt") == workspace.resolve() / "new" / "dir" / "file.txt"
    assert sandbox.relative("src/../src/app.py") == "src/app.py"
    assert sandbox.relative(".") == "."


def test_absolute_path_inside_is_accepted(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    assert sandbox.resolve(str(workspace / "src" / "app.py")) == workspace.resolve() / "src" / "app.py"
    assert sandbox.resolve(str(workspace)) == sandbox.root


@pytest.mark.parametrize("path", ["/etc/passwd", "/", "/tmp", "/etc/../etc/hosts"])
def test_absolute_path_outside_is_refused(layout: tuple[LocalSandbox, Path, Path], path: str) -> None:
    sandbox, _, _ = layout
    with pytest.raises(PermissionError, match="outside the workspace") as info:
        sandbox.resolve(path)
    assert repr(path) in str(info.value)


def test_absolute_path_to_sibling_with_common_prefix_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    sibling = workspace.parent / (workspace.name + "-evil")
    sibling.mkdir()
    with pytest.raises(PermissionError):
        sandbox.resolve(str(sibling / "x"))


@pytest.mark.parametrize(
    "path",
    ["..", "../outside/secret.txt", "a/../../x", "src/../../outside/secret.txt", "src/../../../../../../etc/passwd",
     "./../ws/../outside", "src/app.py/../../.."],
)
def test_dotdot_chains_that_leave_are_refused(layout: tuple[LocalSandbox, Path, Path], path: str) -> None:
    sandbox, _, _ = layout
    with pytest.raises(PermissionError, match="leads outside the workspace") as info:
        sandbox.resolve(path)
    assert repr(path) in str(info.value)


def test_dotdot_that_stays_inside_is_fine(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    assert sandbox.resolve("src/../a/../src/app.py") == workspace.resolve() / "src" / "app.py"


def test_symlink_to_etc_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "etc").symlink_to("/etc")
    with pytest.raises(PermissionError, match="symbolic link 'etc'"):
        sandbox.resolve("etc/passwd")
    with pytest.raises(PermissionError):
        sandbox.read_bytes("etc/passwd")


def test_symlinked_directory_leading_outside_is_refused_for_read_and_write(
    layout: tuple[LocalSandbox, Path, Path],
) -> None:
    sandbox, workspace, outside = layout
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PermissionError):
        sandbox.read_bytes("linkdir/secret.txt")
    with pytest.raises(PermissionError):
        sandbox.write_bytes("linkdir/planted.txt", b"x")
    with pytest.raises(PermissionError):
        sandbox.write_bytes("linkdir/deeper/planted.txt", b"x")
    assert not (outside / "planted.txt").exists()
    assert not (outside / "deeper").exists()


def test_linked_final_component_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, outside = layout
    (workspace / "notes.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(PermissionError, match=r"notes\.txt"):
        sandbox.read_bytes("notes.txt")
    with pytest.raises(PermissionError):
        sandbox.write_bytes("notes.txt", b"overwritten")
    assert (outside / "secret.txt").read_text() == "top secret"


def test_dangling_link_pointing_outside_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, outside = layout
    (workspace / "dangling").symlink_to(outside / "does-not-exist-yet.txt")
    with pytest.raises(PermissionError, match="dangling"):
        sandbox.resolve("dangling")
    with pytest.raises(PermissionError):
        sandbox.write_bytes("dangling", b"planted")
    assert not (outside / "does-not-exist-yet.txt").exists()


def test_dangling_link_to_missing_outside_directory_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "gone").symlink_to("/nonexistent-harness-dir/x")
    with pytest.raises(PermissionError):
        sandbox.write_bytes("gone", b"x")
    with pytest.raises(PermissionError):
        sandbox.resolve("gone/child.txt")


def test_dangling_link_inside_is_followed_inside(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "alias").symlink_to("src/new.txt")
    assert sandbox.resolve("alias") == workspace.resolve() / "src" / "new.txt"
    assert sandbox.write_bytes("alias", b"made") is True
    assert (workspace / "src" / "new.txt").read_bytes() == b"made"


def test_link_inside_pointing_inside_is_allowed(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "code").symlink_to(workspace / "src", target_is_directory=True)
    assert sandbox.read_bytes("code/app.py") == b"print('hi')\n"


def test_link_then_dotdot_follows_the_link_like_the_os(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, outside = layout
    nested = outside / "nested"
    nested.mkdir()
    (workspace / "jump").symlink_to(nested, target_is_directory=True)
    # Lexically "jump/../src/app.py" is inside; the OS follows jump first and lands outside.
    with pytest.raises(PermissionError):
        sandbox.resolve("jump/../secret.txt")


def test_relative_link_climbing_out_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "src" / "up").symlink_to("../../outside/secret.txt")
    with pytest.raises(PermissionError):
        sandbox.read_bytes("src/up")


def test_symlink_loop_is_a_clear_error(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    (workspace / "a").symlink_to("b")
    (workspace / "b").symlink_to("a")
    with pytest.raises(OSError, match="symbolic-link loop") as info:
        sandbox.resolve("a/file")
    assert info.value.errno == errno.ELOOP


def test_nul_byte_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, _, _ = layout
    with pytest.raises(ValueError, match="NUL"):
        sandbox.resolve("src/app.py\0.txt")


def test_root_given_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    sandbox = LocalSandbox(tmp_path / "alias")
    assert sandbox.root == real.resolve()
    # Absolute paths spelled through the alias are inside too.
    assert sandbox.resolve(str(tmp_path / "alias" / "f.txt")) == real.resolve() / "f.txt"


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError, match="not an existing directory"):
        LocalSandbox(tmp_path / "missing")


def test_swapped_in_link_after_the_check_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    """TOCTOU: a directory replaced by a link between resolve() and open() is not followed."""
    sandbox, workspace, outside = layout
    (workspace / "box").mkdir()
    (workspace / "box" / "secret.txt").write_text("inside")
    real_resolve = sandbox.resolve

    def racing_resolve(path: str | os.PathLike[str]) -> Path:
        resolved = real_resolve(path)
        # The attacker wins the race right after the check.
        (workspace / "box" / "secret.txt").unlink()
        (workspace / "box").rmdir()
        (workspace / "box").symlink_to(outside, target_is_directory=True)
        return resolved

    sandbox.resolve = racing_resolve  # type: ignore[method-assign]
    with pytest.raises(PermissionError, match="changed into a symbolic link"):
        sandbox.read_bytes("box/secret.txt")


def test_swapped_in_final_link_after_the_check_is_refused(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, outside = layout
    target = workspace / "f.txt"
    target.write_text("inside")
    real_resolve = sandbox.resolve

    def racing_resolve(path: str | os.PathLike[str]) -> Path:
        resolved = real_resolve(path)
        target.unlink()
        target.symlink_to(outside / "secret.txt")
        return resolved

    sandbox.resolve = racing_resolve  # type: ignore[method-assign]
    with pytest.raises(PermissionError, match="changed into a symbolic link"):
        sandbox.write_bytes("f.txt", b"overwrite")
    assert (outside / "secret.txt").read_text() == "top secret"


def test_write_creates_parents_and_reports_creation(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    assert sandbox.write_bytes("a/b/c.txt", b"one") is True
    assert sandbox.write_bytes("a/b/c.txt", b"two") is False
    assert (workspace / "a" / "b" / "c.txt").read_bytes() == b"two"
    assert sandbox.read_bytes("a/b/c.txt", max_bytes=1) == b"t"


def test_reading_a_directory_or_the_root_fails_clearly(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, _, _ = layout
    with pytest.raises(IsADirectoryError):
        sandbox.read_bytes(".")
    with pytest.raises(OSError):
        sandbox.read_bytes("src")
    with pytest.raises(FileNotFoundError):
        sandbox.read_bytes("missing.txt")


@pytest.mark.anyio
async def test_text_file_protocol_and_views(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    await sandbox.write_text_file("notes/hello.txt", "héllo")
    assert (workspace / "notes" / "hello.txt").read_text(encoding="utf-8") == "héllo"
    (workspace / "bad.txt").write_bytes(b"ok \xff\xfe end")
    assert await sandbox.read_text_file("bad.txt") == "ok \ufffd\ufffd end"
    assert isinstance(sandbox, Sandbox)
    view = sandbox.restricted()
    assert isinstance(view, SandboxView)
    assert not hasattr(view, "stop") and not hasattr(view, "resolve")
    assert view.root == sandbox.root
    assert await view.read_text_file("notes/hello.txt") == "héllo"
    with pytest.raises(PermissionError):
        await view.read_text_file("../outside/secret.txt")
    with pytest.raises(PermissionError):
        await view.write_text_file("/etc/harness-planted", "x")


def test_fifos_are_refused_without_blocking(layout: tuple[LocalSandbox, Path, Path]) -> None:
    sandbox, workspace, _ = layout
    os.mkfifo(workspace / "pipe")
    with pytest.raises(OSError, match="not a regular file") as info:
        sandbox.read_bytes("pipe")
    assert info.value.errno == errno.EINVAL
    with pytest.raises(OSError, match="not a regular file"):
        sandbox.write_bytes("pipe", b"x")
