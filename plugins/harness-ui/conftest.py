"""harness-ui tests: nothing to ignore; fixtures live in tests/conftest.py."""
