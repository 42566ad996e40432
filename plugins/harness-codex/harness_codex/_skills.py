"""Skills on Codex: installed in ``$CODEX_HOME/skills/<name>/SKILL.md`` of the session's home.

The session's Codex home is a private temporary one unless the adapter was given
``home=`` / ``codex_home=``; the machine's own ``~/.codex`` is refused (fail closed), so a
skill never lands outside the session's isolated home.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness_core import HarnessConfigurationError, Skill, install_skills

__all__ = ["install_codex_skills"]


def install_codex_skills(skills: Sequence[Skill], codex_home: Path) -> None:
    """Write ``skills`` under ``codex_home / "skills"``.

    Raises:
        HarnessConfigurationError: ``codex_home`` is the user's own ``~/.codex``, or a skill
            path would leave the folder.
    """
    if not skills:
        return
    own = Path(os.path.expanduser("~")) / ".codex"
    if codex_home.resolve() == own.resolve():
        raise HarnessConfigurationError("codex: skills= is not installed into the machine's own ~/.codex; "
                                        "give the adapter a separate home= or codex_home=")
    install_skills(skills, codex_home / "skills")
