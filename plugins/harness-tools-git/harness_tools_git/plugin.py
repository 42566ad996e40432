"""Hook implementations of harness-tools-git.

Registered through the ``harness`` entry-point group as plugin ``tools-git``
(``[project.entry-points.harness] tools-git = "harness_tools_git.plugin"``).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness_core import HarnessTool, hookimpl

from .tools import GIT_TOOLS


@hookimpl
def harness_tools() -> Sequence[HarnessTool]:
    """Contribute ``git_status``, ``git_diff`` and ``git_log``."""
    return list(GIT_TOOLS)
