"""The README's comment on ``print(part.to_json())`` shows what that line really prints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from harness_core.parts.models import ToolCallPart

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_to_json_comment_is_the_printed_dict_repr() -> None:
    (comment,) = re.findall(r"print\(part\.to_json\(\)\)\s+# (.*)$", README, flags=re.M)
    assert comment.endswith(", ...}")
    shown = comment.removesuffix(", ...}") + "}"
    expected = ast.literal_eval(shown)
    # to_json() returns a dict, so print() shows its repr (single quotes), not JSON text.
    assert repr(expected) == shown
    part = ToolCallPart(tool_call_id="c1", tool_name="weather", input={"city": "Paris"}).to_json()
    assert isinstance(part, dict)
    assert expected.items() <= part.items()
