"""``harness plugins`` and ``harness tools`` (placeholder until the core CLI lands)."""

from __future__ import annotations

import click

COMMANDS: dict[str, click.Command] = {}
