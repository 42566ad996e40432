"""The ``bash`` tool: one shell command in the workspace."""

from __future__ import annotations

from typing import Any, Final

from harness_core import (
    HarnessTool,
    ToolContext,
    ToolOutput,
    ToolResources,
    define_harness_tool,
)

from ._common import ToolError, cut_middle, settings_of, workspace_of

__all__ = ["BASH", "format_command_result"]


def _bash_resources(value: Any) -> ToolResources:
    return ToolResources(command=str(value["command"]))


def format_command_result(
    stdout: str, stderr: str, exit_code: int | None, timed_out: bool, timeout: float, limit: int
) -> str:
    """The text the model sees for a command: stdout, then ``[stderr]`` and stderr, then
    the exit status line; the middle is cut to fit ``limit`` characters."""
    sections: list[str] = []
    if stdout:
        sections.append(stdout.rstrip("\n"))
    if stderr:
        sections.append("[stderr]\n" + stderr.rstrip("\n"))
    body = cut_middle("\n".join(sections), limit)
    if timed_out:
        status = f"[timed out after {timeout:g} s; the command and its child processes were killed]"
    else:
        status = f"[exit code: {exit_code}]"
    return f"{body}\n{status}" if body else status


async def _bash(input: dict[str, Any], context: ToolContext) -> ToolOutput:
    command: str = input["command"]
    if not command.strip():
        raise ToolError("the command is empty")
    settings = settings_of(context)
    timeout = float(input.get("timeout", settings.bash_default_timeout))
    if timeout > settings.bash_max_timeout:
        raise ToolError(f"timeout {timeout:g} s is more than the allowed {settings.bash_max_timeout:g} s")
    workspace = workspace_of(context)
    result = await workspace.sandbox.run_command(command, timeout=timeout)
    text = format_command_result(
        result.stdout, result.stderr, result.exit_code, result.timed_out, timeout, settings.bash_max_output_chars
    )
    return ToolOutput(text, is_error=result.timed_out or result.exit_code != 0)


BASH: Final[HarnessTool] = define_harness_tool(
    name="bash",
    description=(
        "Run a shell command (bash -c) with the workspace root as working directory and return its "
        "stdout, stderr and exit code. Default timeout 120 s (at most 600 s). The environment has no "
        "host secrets. Long output is cut in the middle."
    ),
    input={
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The command line to run."},
            "timeout": {"type": "number", "minimum": 0.1, "maximum": 3600, "description": "Seconds before the command is killed (default 120)."},
            "description": {"type": "string", "description": "What the command does, in a few words (shown to the user)."},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    resources=_bash_resources,
    execute=_bash,
)
