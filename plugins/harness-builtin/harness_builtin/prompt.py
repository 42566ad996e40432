"""The built-in harness's system prompt."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["system_prompt"]


def system_prompt(root: Path, tool_names: Sequence[str], instructions: Sequence[str | None] = ()) -> str:
    """The system prompt: who the agent is, where it works, its tools, then the host's
    instructions (each appended as its own paragraph)."""
    text = (
        "You are a coding agent working in a software project. The workspace root is "
        f"{root}; give file paths relative to it. Use the tools to look at the code, change "
        "it and run commands; read a file before editing it, keep changes small, and check "
        "your work by running the project's tests when there are some. When you are done, "
        "answer briefly with what you did.\n"
        f"Tools: {', '.join(tool_names) or 'none'}."
    )
    extra: list[str] = []
    for part in instructions:
        text_part = part.strip() if part else ""
        if text_part and text_part not in extra:
            extra.append(text_part)
    return "\n\n".join([text, *extra])
