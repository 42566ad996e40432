"""Hook implementations of harness_rules (registered through the harness entry-point group)."""
