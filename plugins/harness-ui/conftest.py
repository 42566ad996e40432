"""Keep pytest out of the demo project: its test fails on purpose (the demo fixes it)."""

collect_ignore_glob = ["harness_ui/demo_project/*"]
