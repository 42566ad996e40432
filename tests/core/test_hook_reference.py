"""CONTRIBUTING.md's hook reference matches harness_core/hookspecs.py exactly.

For every hook specification: a ``### `harness_x` `` section under ``## Hook reference``
whose python code block is the exact signature (``inspect.signature`` of the spec, with
its annotations as written) and whose **Kind** line names the pluggy kind. No section
documents a hook that no longer exists.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from harness_core import hookspecs

CONTRIBUTING = Path(__file__).resolve().parents[2] / "CONTRIBUTING.md"


def spec_signature(name: str) -> str:
    """``harness_x(arg: Type, ...) -> Return`` as written in hookspecs.py."""
    function = getattr(hookspecs, name)
    signature = inspect.signature(function)  # annotations stay strings (postponed evaluation)
    params = ", ".join(f"{param.name}: {param.annotation}" for param in signature.parameters.values())
    return f"{name}({params}) -> {signature.return_annotation}"


def spec_kind(name: str) -> str:
    options = getattr(getattr(hookspecs, name), f"{hookspecs.PROJECT_NAME}_spec")
    return "firstresult" if options.get("firstresult") else "collect"


def reference_sections() -> dict[str, str]:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    match = re.search(r"^## Hook reference\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert match is not None, "CONTRIBUTING.md has no '## Hook reference' section"
    body = match.group(1)
    parts = re.split(r"^### `([^`]+)`\n", body, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


SECTIONS = reference_sections()


def test_hook_names_are_all_the_specs() -> None:
    specs = sorted(name for name, value in vars(hookspecs).items() if name.startswith("harness_") and callable(value))
    assert list(hookspecs.HOOK_NAMES) == specs
    assert len(specs) >= 8


@pytest.mark.parametrize("name", hookspecs.HOOK_NAMES)
def test_every_hook_is_documented_with_its_exact_signature(name: str) -> None:
    assert name in SECTIONS, f"CONTRIBUTING.md's hook reference has no section for {name}"
    blocks = re.findall(r"```python\n(.*?)\n```", SECTIONS[name], flags=re.S)
    assert blocks == [spec_signature(name)]


@pytest.mark.parametrize("name", hookspecs.HOOK_NAMES)
def test_every_hook_documents_its_kind_implementers_and_combination(name: str) -> None:
    section = SECTIONS[name]
    kind = re.search(r"^- \*\*Kind:\*\* (.+)$", section, flags=re.M)
    assert kind is not None, f"{name}: no Kind line"
    assert kind.group(1).split(",")[0].strip() == spec_kind(name)
    assert "- **Implemented by:**" in section
    assert "- **Combination:**" in section


def test_no_stale_hook_is_documented() -> None:
    stale = sorted(set(SECTIONS) - set(hookspecs.HOOK_NAMES))
    assert stale == []
    text = CONTRIBUTING.read_text(encoding="utf-8")
    mentioned = set(re.findall(r"\b(harness_[a-z_]+)\(", text))
    assert mentioned <= set(hookspecs.HOOK_NAMES), mentioned - set(hookspecs.HOOK_NAMES)


def test_signature_rendering_matches_the_source_text() -> None:
    # Guards the helper itself: the rendered signature is what hookspecs.py says.
    source = inspect.getsource(hookspecs)
    assert "def harness_approve_call(call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:" in source
    assert spec_signature("harness_approve_call") == (
        "harness_approve_call(call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None"
    )
