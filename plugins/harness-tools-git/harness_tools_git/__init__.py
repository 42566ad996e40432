"""harness-tools-git: read-only git tools for harness-core.

``git_status``, ``git_diff`` and ``git_log`` run git in the session sandbox's working
directory. Installing the distribution is enough: the ``tools-git`` plugin contributes
them through the ``harness_tools`` hook. They can also be passed to an agent directly::

    from harness_tools_git import git_diff, git_log, git_status
"""

from .tools import GIT_TOOLS, MAX_LOG_COUNT, git_diff, git_log, git_status

__all__ = ["GIT_TOOLS", "MAX_LOG_COUNT", "git_diff", "git_log", "git_status"]
