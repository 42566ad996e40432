"""read, write and edit on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_builtin.tools import BUILTIN_TOOLS

from harness_core import ToolInputError

pytestmark = pytest.mark.anyio


async def test_read_numbers_lines(call_tool, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\ngamma\n")
    out = await call_tool("read", {"file_path": "a.txt"})
    assert not out.is_error
    assert out.content == "     1\talpha\n     2\tbeta\n     3\tgamma"


async def test_read_line_ranges(call_tool, workspace: Path) -> None:
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await call_tool("read", {"file_path": "n.txt", "offset": 3, "limit": 2})
    assert out.content.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "[lines 3-4 of 10 in n.txt; read on with offset=5]" in out.content
    tail = await call_tool("read", {"file_path": "n.txt", "offset": 9})
    assert tail.content.splitlines()[:2] == ["     9\tline 9", "    10\tline 10"]
    assert "[lines 9-10 of 10 in n.txt]" in tail.content
    past = await call_tool("read", {"file_path": "n.txt", "offset": 11})
    assert past.is_error and "offset 11 is past the end" in past.content and "10 lines" in past.content


async def test_read_refuses_binary_files(call_tool, workspace: Path) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    out = await call_tool("read", {"file_path": "img.png"})
    assert out.is_error and "binary file" in out.content


async def test_read_errors_name_the_path(call_tool, workspace: Path) -> None:
    (workspace / "dir").mkdir()
    missing = await call_tool("read", {"file_path": "nope.txt"})
    assert missing.is_error and "'nope.txt' does not exist" in missing.content
    directory = await call_tool("read", {"file_path": "dir"})
    assert directory.is_error and "is a directory" in directory.content
    outside = await call_tool("read", {"file_path": "/etc/passwd"})
    assert outside.is_error and "outside the workspace" in outside.content
    escape = await call_tool("read", {"file_path": "../../etc/passwd"})
    assert escape.is_error and "outside the workspace" in escape.content


async def test_read_empty_and_undecodable(call_tool, workspace: Path) -> None:
    (workspace / "empty.txt").write_text("")
    assert (await call_tool("read", {"file_path": "empty.txt"})).content == "(empty file: empty.txt)"
    (workspace / "latin.txt").write_bytes(b"caf\xe9\n")
    assert (await call_tool("read", {"file_path": "latin.txt"})).content == "     1\tcaf\ufffd"


async def test_read_cuts_long_lines(call_tool, workspace: Path) -> None:
    (workspace / "long.txt").write_text("x" * 5000)
    out = await call_tool("read", {"file_path": "long.txt"})
    assert out.content.endswith("x [line cut]") and len(out.content) < 2100


async def test_read_through_a_link_to_etc_is_refused(call_tool, workspace: Path) -> None:
    (workspace / "passwd").symlink_to("/etc/passwd")
    out = await call_tool("read", {"file_path": "passwd"})
    assert out.is_error and "outside the workspace" in out.content


def test_read_schema_rejects_bad_arguments() -> None:
    with pytest.raises(ToolInputError, match=r"\$.offset"):
        BUILTIN_TOOLS["read"].validate({"file_path": "a", "offset": 0})
    with pytest.raises(ToolInputError, match="file_path"):
        BUILTIN_TOOLS["read"].validate({"path": "a"})


async def test_write_creates_and_overwrites(call_tool, workspace: Path) -> None:
    created = await call_tool("write", {"file_path": "pkg/mod.py", "content": "x = 1\n"})
    assert created.content == "Created pkg/mod.py (6 bytes, 1 lines)"
    assert (workspace / "pkg" / "mod.py").read_text() == "x = 1\n"
    again = await call_tool("write", {"file_path": "pkg/mod.py", "content": "x = 2\ny = 3\n"})
    assert again.content.startswith("Overwrote pkg/mod.py")
    assert (workspace / "pkg" / "mod.py").read_text() == "x = 2\ny = 3\n"


async def test_write_refuses_escapes(call_tool, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    for path in ["../outside/x.txt", str(outside / "x.txt"), "out/x.txt", "a/../../outside/x.txt"]:
        out = await call_tool("write", {"file_path": path, "content": "planted"})
        assert out.is_error and "outside the workspace" in out.content, path
    assert list(outside.iterdir()) == []


async def test_edit_replaces_exact_text(call_tool, workspace: Path) -> None:
    (workspace / "m.py").write_text("def f():\n    return 1\n\nprint(f())\n")
    out = await call_tool("edit", {"file_path": "m.py", "old_string": "return 1", "new_string": "return 2"})
    assert not out.is_error
    assert out.content.startswith("Edited m.py: replaced 1 occurrence.")
    assert "     2\t    return 2" in out.content
    assert (workspace / "m.py").read_text() == "def f():\n    return 2\n\nprint(f())\n"


async def test_edit_errors(call_tool, workspace: Path) -> None:
    (workspace / "m.py").write_text("a = 1\na = 1\n")
    empty = await call_tool("edit", {"file_path": "m.py", "old_string": "", "new_string": "x"})
    assert empty.is_error and "old_string is empty" in empty.content
    missing = await call_tool("edit", {"file_path": "m.py", "old_string": "b = 2", "new_string": "x"})
    assert missing.is_error and "not found in m.py" in missing.content
    ambiguous = await call_tool("edit", {"file_path": "m.py", "old_string": "a = 1", "new_string": "a = 3"})
    assert ambiguous.is_error and "occurs 2 times" in ambiguous.content and "replace_all" in ambiguous.content
    same = await call_tool("edit", {"file_path": "m.py", "old_string": "a = 1", "new_string": "a = 1"})
    assert same.is_error and "the same" in same.content
    nofile = await call_tool("edit", {"file_path": "new.py", "old_string": "a", "new_string": "b"})
    assert nofile.is_error and "does not exist" in nofile.content and "write" in nofile.content
    assert (workspace / "m.py").read_text() == "a = 1\na = 1\n"


async def test_edit_counts_overlapping_occurrences_and_names_their_lines(call_tool, workspace: Path) -> None:
    (workspace / "a.txt").write_text("aaa")
    out = await call_tool("edit", {"file_path": "a.txt", "old_string": "aa", "new_string": "b"})
    assert out.is_error and "occurs 2 times" in out.content and "line 1;" in out.content
    (workspace / "n.txt").write_text("x\n\n\ny")
    out = await call_tool("edit", {"file_path": "n.txt", "old_string": "\n\n", "new_string": "\n"})
    assert out.is_error and "occurs 2 times" in out.content and "lines 1, 2;" in out.content
    assert (workspace / "a.txt").read_text() == "aaa" and (workspace / "n.txt").read_text() == "x\n\n\ny"
    (workspace / "m.py").write_text("a = 1\nb = 2\na = 1\n")
    out = await call_tool("edit", {"file_path": "m.py", "old_string": "a = 1", "new_string": "a = 3"})
    assert out.is_error and "starting on lines 1, 3;" in out.content


async def test_edit_replace_all(call_tool, workspace: Path) -> None:
    (workspace / "m.py").write_text("a = 1\na = 1\n")
    out = await call_tool("edit", {"file_path": "m.py", "old_string": "a = 1", "new_string": "a = 3", "replace_all": True})
    assert "replaced 2 occurrences" in out.content
    assert (workspace / "m.py").read_text() == "a = 3\na = 3\n"


async def test_edit_keeps_crlf_files_crlf(call_tool, workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = await call_tool("edit", {"file_path": "w.txt", "old_string": "one\ntwo", "new_string": "1\n2"})
    assert not out.is_error
    assert (workspace / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_edit_refuses_non_utf8(call_tool, workspace: Path) -> None:
    (workspace / "l.txt").write_bytes(b"caf\xe9")
    out = await call_tool("edit", {"file_path": "l.txt", "old_string": "caf", "new_string": "tea"})
    assert out.is_error and "not UTF-8" in out.content
