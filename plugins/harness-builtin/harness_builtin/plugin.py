"""Hook implementations of harness_builtin (registered through the harness entry-point group)."""
