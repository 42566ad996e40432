"""Skills on Claude Code: installed in the skills folder of the session's isolated config dir.

Claude Code reads user skills from ``<CLAUDE_CONFIG_DIR>/skills/<name>/SKILL.md``. The adapter
writes the agent's skills there when the session starts, and only when that config dir is an
isolated one the adapter was given (``claude_code(config_dir=...)`` or ``home=...``, or the
same variables in ``env=``) and not the machine's own ``~/.claude``: otherwise it refuses
(fail closed), so a skill never lands outside the session's isolated home.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness_core import HarnessConfigurationError, Skill, install_skills

from ._options import config_dir_of
from ._settings import ClaudeCodeSettings

__all__ = ["install_claude_skills"]


def _isolated(settings: ClaudeCodeSettings) -> bool:
    return (settings.config_dir is not None or settings.home is not None
            or "CLAUDE_CONFIG_DIR" in settings.env or "HOME" in settings.env)


def install_claude_skills(settings: ClaudeCodeSettings, skills: Sequence[Skill]) -> Path | None:
    """Install ``skills`` into the config dir's ``skills`` folder; the folder, or ``None``.

    Raises:
        HarnessConfigurationError: the config dir is not isolated (or is the user's own), or
            a skill path would leave the folder.
    """
    if not skills:
        return None
    config_dir = config_dir_of(settings).expanduser()
    own = Path(os.path.expanduser("~")) / ".claude"
    if not _isolated(settings) or config_dir.resolve() == own.resolve():
        raise HarnessConfigurationError(
            "claude-code: skills= needs an isolated Claude Code config dir (claude_code(config_dir=...) or "
            "home=...); the adapter does not write skills into the machine's own ~/.claude")
    folder = config_dir / "skills"
    install_skills(skills, folder)
    return folder
