"""Script models and script files: schema, shorthands, errors with file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic
import pytest

from harness_core.testing import (
    Fault,
    ModelTurn,
    Script,
    ScriptError,
    ToolCallSpec,
    coerce_script,
    load_script,
    parse_script_text,
)

FULL = """\
final_text: That is all.
side_answer: A title
toolless: side
models: [fake-model, other-model]
turns:
  - text: I'll list the files.
    reasoning: The user wants a listing.
    tool_calls:
      - name: bash
        arguments: {command: ls -la}
        id: call_1
    usage: {input_tokens: 10, output_tokens: 5, cached_tokens: 2, reasoning_tokens: 1}
  - tool_calls:
      - name: apply_patch
        arguments: |
          *** Begin Patch
          *** End Patch
  - Done.
faults:
  - at: 0
    status: 529
  - at: [2, 3]
    cut_after_events: 4
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_full_yaml_script_loads(tmp_path: Path) -> None:
    script = load_script(write(tmp_path, "script.yaml", FULL))
    assert script.final_text == "That is all."
    assert script.side_answer == "A title"
    assert script.models == ("fake-model", "other-model")
    first, second, third = script.turns
    assert first.tool_calls == (ToolCallSpec("bash", {"command": "ls -la"}, id="call_1"),)
    assert first.reasoning == "The user wants a listing."
    assert first.usage is not None and first.usage.cached_tokens == 2
    assert second.tool_calls[0].arguments == "*** Begin Patch\n*** End Patch\n"
    assert third == ModelTurn("Done.")
    assert script.faults == (
        Fault.http_error(529, at=0),
        Fault.cut_stream(4, at=[2, 3]),
    )


def test_bare_list_and_json_scripts(tmp_path: Path) -> None:
    listed = load_script(write(tmp_path, "list.yml", "- Hello\n- text: Bye\n"))
    assert [t.text for t in listed.turns] == ["Hello", "Bye"]
    data = {
        "turns": [{"tool_calls": [{"name": "read", "arguments": {"path": "a"}}]}],
        "final_text": "ok",
    }
    from_json = load_script(write(tmp_path, "s.json", json.dumps(data, indent=2)))
    assert from_json.turns[0].tool_calls[0].name == "read"
    assert from_json.final_text == "ok"


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("turns:\n  - text: hi\n    txet: typo\n", 3, 5, "turns[0].txet: unknown field"),
        (
            "turns:\n  - text: hi\n  - tool_calls:\n      - arguments: {}\n",
            4,
            9,
            "turns[1].tool_calls[0].name: Field required",
        ),
        ("turns:\n  - reasoning: only thinking\n", 2, 5, "a turn needs text or tool_calls"),
        ("turns:\n  - text: [unclosed\n", 3, 1, "invalid YAML"),
        ("faults:\n  - at: 0\n    status: 200\n", 3, 5, "faults[0].status"),
        ("faults:\n  - at: 1\n", 2, 5, "a fault needs an effect"),
        ("toolless: never\n", 1, 1, "toolless"),
        ("just a string\n", 1, 1, "a script is a mapping"),
        ("", 1, 1, "the script is empty"),
        ("turns:\n  - text: a\n    text: b\n", 3, 5, "turns[0].text: duplicate key"),
    ],
)
def test_yaml_errors_name_file_line_and_problem(
    tmp_path: Path, text: str, line: int, column: int, fragment: str
) -> None:
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    error = caught.value
    assert (error.path, error.line, error.column) == (str(path), line, column)
    assert str(error).startswith(f"{path}:{line}:{column}: ")
    assert fragment in str(error)


def test_json_syntax_errors_use_json_positions(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", '{\n  "turns": [\n    {"text": "hi",}\n  ]\n}\n')
    with pytest.raises(ScriptError, match=r"bad\.json:3:\d+: invalid JSON") as caught:
        load_script(path)
    assert caught.value.line == 3


def test_json_schema_errors_have_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path, "bad.json", '{\n  "turns": [\n    {"text": "hi"},\n    {"txt": "x"}\n  ]\n}\n'
    )
    with pytest.raises(ScriptError, match=r"bad\.json:4:6: turns\[1\]\.txt: unknown field"):
        load_script(path)


def test_missing_file_is_a_script_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="cannot read script"):
        load_script(tmp_path / "nope.yaml")


def test_parse_script_text_names_its_source() -> None:
    with pytest.raises(ScriptError, match=r"^inline:1:1: "):
        parse_script_text("turns: 3\n", source="inline")


def test_python_models() -> None:
    turn = ModelTurn(tool_calls=[ToolCallSpec("write", {"path": "a", "content": "b"})])
    assert turn.text is None
    assert turn.tool_calls[0].arguments == {"path": "a", "content": "b"}
    assert ToolCallSpec("bash").arguments == {}
    with pytest.raises(pydantic.ValidationError, match="text or tool_calls"):
        ModelTurn()
    with pytest.raises(pydantic.ValidationError):
        ToolCallSpec("")
    assert ModelTurn("").text == ""
    script = Script.of("one", ModelTurn("two"), final_text="end")
    assert [t.text for t in script.turns] == ["one", "two"]
    assert script.final_text == "end"
    with pytest.raises(pydantic.ValidationError):
        ModelTurn.model_validate({"text": "x", "extra": 1})


def test_fault_validation() -> None:
    with pytest.raises(pydantic.ValidationError, match="cannot be combined"):
        Fault(at=(0,), status=500, cut_after_events=1)
    with pytest.raises(pydantic.ValidationError, match="start at 0"):
        Fault(at=(-1,), status=500)
    assert Fault.slow(0.5, event_delay=0.1, at=[1, 2]).at == (1, 2)
    assert Fault.drop("ping", 3).drop_events == ("ping", 3)


def test_coerce_script_accepts_every_form(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "- from a file\n")
    assert coerce_script(str(path)).turns[0].text == "from a file"
    assert coerce_script(path).turns[0].text == "from a file"
    assert coerce_script(["a", ModelTurn("b")]).turns[1].text == "b"

    def respond(request: object) -> str:
        return "hi"

    assert coerce_script(respond).respond is respond
    script = Script()
    assert coerce_script(script) is script
