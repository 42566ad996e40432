"""harness_claude_code plugin for harness-core."""
