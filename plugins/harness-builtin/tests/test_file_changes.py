"""File-change detection on a real directory."""

from __future__ import annotations

import os
from pathlib import Path

from harness_builtin.file_changes import FileChange, diff, snapshot


def test_created_modified_deleted(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("same")
    (tmp_path / "edit.txt").write_text("old")
    (tmp_path / "gone.txt").write_text("bye")
    before = snapshot(tmp_path)
    (tmp_path / "edit.txt").write_text("new content")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "made.txt").write_text("hi")
    assert diff(before, snapshot(tmp_path)) == [
        FileChange("edit.txt", "modified"),
        FileChange("gone.txt", "deleted"),
        FileChange("sub/made.txt", "created"),
    ]


def test_same_size_rewrite_is_seen_and_touch_is_not(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaaa")
    (tmp_path / "b.txt").write_text("bbbb")
    before = snapshot(tmp_path)
    (tmp_path / "a.txt").write_text("cccc")
    os.utime(tmp_path / "b.txt", ns=(1, 1))
    assert diff(before, snapshot(tmp_path)) == [FileChange("a.txt", "modified")]


def test_ignored_directories_are_not_reported(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "index").write_bytes(b"x")
    assert diff(before, snapshot(tmp_path)) == []


def test_bounded(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}").write_text("x")
    snap = snapshot(tmp_path, max_files=3)
    assert not snap.complete and len(snap.files) == 3
