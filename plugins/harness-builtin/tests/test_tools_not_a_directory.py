"""write, edit and read under a path whose component is a regular file: one clear message."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

pytestmark = pytest.mark.anyio


@pytest.fixture
def file_in_the_way(workspace: Path) -> Path:
    (workspace / "d").mkdir()
    target = workspace / "d" / "f"
    target.write_text("keep\n")
    return target


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("write", {"file_path": "d/f/x", "content": "x"}),
        ("write", {"file_path": "d/f/sub/x.py", "content": "x"}),
        ("edit", {"file_path": "d/f/x", "old_string": "a", "new_string": "b"}),
        ("read", {"file_path": "d/f/x"}),
    ],
)
async def test_a_file_in_the_way_is_not_a_directory(call_tool, file_in_the_way: Path, tool: str,
                                                    arguments: dict[str, str]) -> None:
    out = await call_tool(tool, arguments)
    assert out.is_error
    assert "a component of the path" in out.content and "is not a directory" in out.content
    assert "symbolic link" not in out.content
    assert await anyio.Path(file_in_the_way).read_text() == "keep\n"


async def test_write_names_the_component(call_tool, file_in_the_way: Path) -> None:
    out = await call_tool("write", {"file_path": "d/f/x", "content": "x"})
    assert out.content == "Error: path 'd/f/x': a component of the path ('d/f') is not a directory"
