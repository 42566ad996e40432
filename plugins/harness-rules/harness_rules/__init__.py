"""harness_rules plugin for harness-core."""
