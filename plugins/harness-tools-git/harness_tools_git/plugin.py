"""Hook implementations of harness_tools_git (registered through the harness entry-point group)."""
