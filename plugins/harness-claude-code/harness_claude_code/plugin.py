"""Hook implementations of harness_claude_code (registered through the harness entry-point group)."""
