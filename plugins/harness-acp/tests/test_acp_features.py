"""The ACP adapter's capability table: structured output, stop conditions and plan mode are
refused at agent construction, with the protocol's reason."""

from __future__ import annotations

import pydantic
import pytest
from harness_acp import acp

from harness_core import HarnessAgent, HarnessCapabilityUnsupportedError, step_count_is


class Answer(pydantic.BaseModel):
    n: int


@pytest.mark.parametrize(("setting", "reason"), [
    ({"output": Answer}, "no output-schema"),
    ({"stop_when": step_count_is(2)}, "no model-step boundaries"),
    ({"mode": "plan"}, "agent-specific"),
])
def test_unsupported_features_fail_at_construction(setting: dict[str, object], reason: str) -> None:
    with pytest.raises(HarnessCapabilityUnsupportedError, match=reason):
        HarnessAgent(harness=acp(command="my-agent --acp", name="mine"), include_plugin_tools=False, **setting)


def test_capability_table() -> None:
    caps = HarnessAgent(harness=acp(command="my-agent --acp", name="mine"), include_plugin_tools=False).capabilities
    assert caps.supports("mcp-servers") and caps.supports("builtin-approvals")
    assert not caps.supports("compaction") and not caps.supports("builtin-filtering")
