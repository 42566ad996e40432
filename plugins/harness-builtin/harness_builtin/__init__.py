"""harness_builtin plugin for harness-core."""
