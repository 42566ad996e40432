"""The ``harness`` command line: ``harness plugins``, ``tools``, ``run``, ``model-server`` and
the subcommands plugins add through ``harness_cli_commands``."""

from harness_core.cli.main import cli, main

__all__ = ["cli", "main"]
