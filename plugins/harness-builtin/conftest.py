"""Keep pytest out of the demo project: its test fails on purpose (``harness demo`` fixes it)."""

collect_ignore_glob = ["harness_builtin/demo/project/*"]
