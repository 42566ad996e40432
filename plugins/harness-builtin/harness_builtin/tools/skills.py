"""The ``skill`` tool: the agent's skills (``HarnessAgent(skills=...)``) on the built-in harness.

It is offered only when the session has skills; its description lists each skill's name
and description, and a call returns the skill's ``SKILL.md`` (with the list of its files),
or one of its files with ``file``. Skills are served from memory: nothing is written to
the workspace or anywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from harness_core import HarnessTool, Skill, ToolContext, ToolResources, define_harness_tool

from ._common import ToolError

__all__ = ["SKILL_TOOL", "SKILLS_KEY", "skill_tool_description"]

SKILLS_KEY: Final = "harness_builtin.skills"
"""``ToolContext.metadata`` key of the session's skills (name -> :class:`~harness_core.Skill`)."""

_BASE = ("Load a skill: its instructions (SKILL.md) and the list of its files; pass `file` to read one "
         "of them. Load a skill when the task matches its description, then follow it.")


def skill_tool_description(skills: Sequence[Skill]) -> str:
    """The tool's description with the available skills listed (``- name: description``)."""
    return _BASE + "\n\nAvailable skills:\n" + "\n".join(f"- {s.name}: {s.description}" for s in skills)


def _load(input: Mapping[str, Any], context: ToolContext) -> str:
    skills: Mapping[str, Skill] = context.metadata.get(SKILLS_KEY) or {}
    name = str(input.get("name", ""))
    skill = skills.get(name)
    if skill is None:
        raise ToolError(f"no skill named {name!r}; available: {', '.join(sorted(skills)) or 'none'}")
    path = input.get("file")
    if path:
        item = skill.file(str(path))
        if item is None:
            raise ToolError(f"skill {name!r} has no file {path!r}; its files: "
                            f"{', '.join(f.path for f in skill.files) or 'none'}")
        if isinstance(item.content, bytes):
            try:
                return item.content.decode("utf-8")
            except UnicodeDecodeError:
                raise ToolError(f"{path!r} of skill {name!r} is a binary file") from None
        return item.content
    listing = "".join(f"\n- {f.path}" for f in skill.files)
    return skill.markdown() + (f"\nFiles of this skill (read one with `file`):{listing}\n" if listing else "")


SKILL_TOOL: Final[HarnessTool] = define_harness_tool(
    name="skill",
    description=_BASE,
    input={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name."},
            "file": {"type": "string", "description": "A file of the skill to read (relative path), instead of "
                                                      "its instructions."},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    read_only=True,
    resources=lambda value: ToolResources(),
    execute=_load,
)
"""The ``skill`` built-in (read-only)."""
