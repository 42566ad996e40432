"""``harness demo``: the main job, offline."""
