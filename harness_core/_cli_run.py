import click

COMMANDS: dict[str, click.Command] = {}
