"""The tool offer: what the model is offered, which calls are read-only, the system prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_builtin.offer import ToolOffer
from harness_builtin.tools import BUILTIN_TOOLS
from harness_builtin.workspace import Workspace

from harness_core import (
    BuiltinFilter,
    BuiltinFilterMode,
    HarnessConfigurationError,
    HostToolSpec,
    LocalSandbox,
)

READ_ONLY = frozenset({"read", "grep", "glob", "ls"})
LOOKUP = HostToolSpec("lookup", "look a thing up", {"type": "object"}, read_only=True)
DEPLOY = HostToolSpec("deploy", "deploy it", {"type": "object"})


def _offer(root: Path, builtin_filter: BuiltinFilter | None = None) -> ToolOffer:
    return ToolOffer(
        tools=BUILTIN_TOOLS, read_only=READ_ONLY,
        builtin_filter=builtin_filter,
        host_tools=[LOOKUP, DEPLOY], workspace=Workspace(LocalSandbox(root)),
        instructions=["ADAPTER NOTE", None],
    )


def test_filter_repair_mode_and_read_only(tmp_path: Path) -> None:
    offer = _offer(tmp_path, builtin_filter=BuiltinFilter(BuiltinFilterMode.INACTIVE, {"bash", "grep"}))
    names = [spec.name for spec in offer.offered(repair_mode=False)]
    assert "bash" not in names and "grep" not in names
    assert names[-2:] == ["lookup", "deploy"]
    assert sorted(offer.inactive()) == ["bash", "grep"]
    assert offer.read_only_names() == {"read", "glob", "ls", "lookup"}
    assert {spec.name for spec in offer.offered(repair_mode=True)} == {"read", "glob", "ls", "lookup"}
    assert offer.builtin_names == frozenset(BUILTIN_TOOLS) - {"skill"}  # no skills: no skill tool
    assert set(offer.host_schemas()) == {"lookup", "deploy"}


def test_prompt_host_tools_and_instructions(tmp_path: Path) -> None:
    offer = _offer(tmp_path)
    first = offer.system()
    assert "ADAPTER NOTE" in first and "deploy" in first and str(tmp_path.resolve()) in first
    offer.set_prompt([], "PROMPT NOTE")
    second = offer.system()
    assert "PROMPT NOTE" in second and "deploy" in second  # no new host tools: the old ones stay
    offer.set_prompt([LOOKUP], None)
    third = offer.system()
    assert "PROMPT NOTE" not in third and "deploy" not in third
    assert [t.name for t in offer.host_tools] == ["lookup"]
    with pytest.raises(HarnessConfigurationError, match="'read'"):
        offer.set_prompt([HostToolSpec("read", "clash", {"type": "object"})], None)
    assert [t.name for t in offer.host_tools] == ["lookup"]
