"""harness_tools_git plugin for harness-core."""
