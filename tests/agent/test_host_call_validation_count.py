"""A host tool call's input is validated once by the core (issue 17: validate once).

Counts :meth:`ToolInputSchema.validate` (the core's check) and jsonschema validations per
call on the agent's host-tool path (``tools=``), through the scripted adapter (which checks
nothing itself) and through the built-in harness (whose repair check reads the arguments
before the calls run). Valid arguments of a schema in the core's subset are accepted by the
compiled check (:func:`harness_core.schema_checker`) without a jsonschema walk; jsonschema
words the problems of invalid ones.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from harness_builtin import ScriptedModelClient, create_builtin_adapter

from harness_core import HarnessAgent, LocalSandbox, create_plugin_manager, define_harness_tool
from harness_core.testing import (
    CallHost,
    EchoResults,
    ModelTurn,
    Script,
    ScriptedAdapter,
    ToolCallSpec,
)
from harness_core.tools.schema import ToolInputSchema

CALLS = 3

pytestmark = pytest.mark.anyio


ECHO = define_harness_tool(
    name="echo", description="Return the text.", read_only=True,
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=lambda value, context: value["text"],
)
"""Defined before counting starts (defining a tool checks its schema against the meta-schema)."""


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    seen: Counter[str] = Counter()
    core_validate = ToolInputSchema.validate
    iter_errors = jsonschema.Draft202012Validator.iter_errors

    def counted_validate(self: ToolInputSchema, tool_name: str, arguments: object) -> Any:
        seen["core"] += 1
        return core_validate(self, tool_name, arguments)

    def counted_iter_errors(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen["jsonschema"] += 1
        return iter_errors(self, *args, **kwargs)

    monkeypatch.setattr(ToolInputSchema, "validate", counted_validate)
    monkeypatch.setattr(jsonschema.Draft202012Validator, "iter_errors", counted_iter_errors)
    return seen


async def test_the_core_validates_each_host_call_once(counts: Counter[str]) -> None:
    runtime = ScriptedAdapter([[[CallHost("echo", {"text": f"t{i}"}) for i in range(CALLS)], [EchoResults("Saw:")]]])
    agent = runtime.agent(tools=[ECHO])
    result = await agent.run("go")
    assert len(result.all_tool_results) == CALLS
    assert counts == Counter(core=CALLS)  # valid input: the compiled check, no jsonschema walk


async def test_invalid_input_is_worded_by_jsonschema_once_per_call(counts: Counter[str]) -> None:
    runtime = ScriptedAdapter([[[CallHost("echo", {"text": i}) for i in range(CALLS)], [EchoResults("Saw:")]]])
    agent = runtime.agent(tools=[ECHO])
    result = await agent.run("go")
    errors = [p for p in result.parts if p.type == "tool-error"]
    assert len(errors) == CALLS and all("is not of type 'string'" in p.error for p in errors)
    assert counts == Counter(core=CALLS, jsonschema=CALLS)


async def test_on_the_builtin_harness_the_core_validates_once_and_the_repair_check_reads_once(
    counts: Counter[str], tmp_path: Path,
) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("echo", {"text": f"t{i}"}) for i in range(CALLS)]), "done")
    agent = HarnessAgent(harness=create_builtin_adapter(model=ScriptedModelClient(script)), tools=[ECHO],
                         include_plugin_tools=False,
                         plugin_manager=create_plugin_manager(load_entry_points=False, env={}))
    session = await agent.create_session(sandbox=LocalSandbox(tmp_path))
    result = await agent.generate(session=session, prompt="go")
    await session.destroy()
    assert len(result.all_tool_results) == CALLS
    # One core validation per call; the built-in harness's repair check (a repair turn for
    # arguments that break the schema, see docs/builtin.md) is the only other reading, and
    # for valid arguments neither walks jsonschema.
    assert counts == Counter(core=CALLS)
