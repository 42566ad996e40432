"""The script model: what a scripted model server answers, turn by turn."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness_core.testing._faults import Fault
from harness_core.testing._request import ModelRequest

__all__ = ["ModelTurn", "Responder", "Script", "ToolCallSpec", "Usage"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Usage(BaseModel):
    """Token counts reported for one turn, copied verbatim into each wire's fields.

    ``input_tokens`` / ``output_tokens`` default to an estimate (a quarter of the
    request body's bytes, of the answer's characters). ``cached_tokens`` becomes
    Anthropic ``cache_read_input_tokens`` and OpenAI ``cached_tokens``;
    ``cache_creation_tokens`` Anthropic ``cache_creation_input_tokens``;
    ``reasoning_tokens`` OpenAI ``reasoning_tokens``.
    """

    model_config = _FROZEN

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cached_tokens: int = Field(default=0, ge=0)
    cache_creation_tokens: int = Field(default=0, ge=0)
    reasoning_tokens: int = Field(default=0, ge=0)


class ToolCallSpec(BaseModel):
    """One scripted tool call: ``ToolCallSpec("bash", {"command": "ls"})``.

    ``name`` is an offered tool name or a common name (bash, read, write, edit,
    grep, glob, ls) resolved against the request's tools; a flat
    ``mcp__<server>__<tool>`` also matches a Responses namespace tool.
    ``arguments`` is a JSON object, or a string sent verbatim (a custom
    freeform tool's raw ``input``, or deliberately malformed JSON). Object
    arguments of built-in tools (any name in ``COMMON_TOOL_NAMES``) have their
    keys renamed to the offered schema's synonyms (``path`` -> ``file_path``...). ``id`` is the
    call id; by default ``toolu_t<turn>_<n>`` (Anthropic) or ``call_t<turn>_<n>``.

    A call naming no offered tool is a script error (HTTP 500, :class:`ToolNotOfferedError`),
    unless ``unoffered=True``: then the call is sent as it is, to test how a runtime
    refuses a call to a tool it did not offer (a filtered-out built-in, say). ``name`` goes on
    the wire exactly as written (no common-name or case-insensitive resolution) and
    ``arguments`` unchanged (no synonym renaming). When ``name`` is exactly an offered
    tool's flat name, the call is shaped for that tool (its wire name, namespace and kind);
    otherwise it is a plain function call named ``name``.
    """

    model_config = _FROZEN

    name: str = Field(min_length=1)
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = Field(default=None, min_length=1)
    unoffered: bool = False

    def __init__(
        self,
        name: str | None = None,
        arguments: Mapping[str, Any] | str | None = None,
        id: str | None = None,
        *,
        unoffered: bool | None = None,
        **data: Any,
    ) -> None:
        # pydantic also calls this when validating dicts, so pass on only what was given
        given = {"name": name, "arguments": arguments, "id": id, "unoffered": unoffered}
        super().__init__(**{k: v for k, v in given.items() if v is not None}, **data)


class ModelTurn(BaseModel):
    """One scripted model turn: text and/or tool calls, optional reasoning and usage.

    ``ModelTurn("Done.")`` is a text turn; ``ModelTurn(tool_calls=[ToolCallSpec("bash",
    {"command": "ls"})])`` a tool turn. Text comes before the calls on the wire.
    Raises ``pydantic.ValidationError`` when neither ``text`` nor ``tool_calls``
    is given (use ``text=""`` for a deliberately empty answer).
    """

    model_config = _FROZEN

    text: str | None = None
    tool_calls: tuple[ToolCallSpec, ...] = ()
    reasoning: str | None = None
    usage: Usage | None = None

    def __init__(
        self,
        text: str | None = None,
        *,
        tool_calls: Sequence[ToolCallSpec | Mapping[str, Any]] = (),
        reasoning: str | None = None,
        usage: Usage | Mapping[str, Any] | None = None,
        **data: Any,
    ) -> None:
        # pydantic also calls this when validating dicts, so pass on only what was given
        given = {"text": text, "reasoning": reasoning, "usage": usage}
        if tool_calls:
            data["tool_calls"] = tool_calls
        super().__init__(**{k: v for k, v in given.items() if v is not None}, **data)

    @model_validator(mode="after")
    def _has_content(self) -> ModelTurn:
        if self.text is None and not self.tool_calls:
            raise ValueError('a turn needs text or tool_calls (use text: "" for an empty answer)')
        return self


Responder: TypeAlias = Callable[[ModelRequest], ModelTurn | str | None]
"""A callable script: gets each parsed request, returns the turn (a str is a text
turn), or ``None`` to fall back to the script's turns / side answer / final text."""


class Script(BaseModel):
    """A scripted conversation and how the server treats requests outside it.

    - ``turns``: the answers, chosen by :attr:`ModelRequest.turn_index` (the
      number of assistant turns already in the conversation), so retries get
      the same turn again; a plain string is a text turn.
    - ``final_text``: the answer once the script is exhausted.
    - ``side_answer``: the answer to requests that offer no tools (titles,
      compaction, summaries) when ``toolless`` is ``"side"`` (the default);
      with ``"script"`` tool-less requests follow the turns like any other.
    - ``models``: ids listed by ``GET /v1/models`` (requested ids are echoed and
      listed too).
    - ``faults``: injected faults, see :class:`Fault`.
    - ``respond``: an optional callable asked first for every request.
    """

    model_config = _FROZEN

    turns: tuple[ModelTurn, ...] = ()
    final_text: str = "Done."
    side_answer: str = "OK."
    toolless: Literal["side", "script"] = "side"
    models: tuple[str, ...] = ("fake-model",)
    faults: tuple[Fault, ...] = ()
    respond: Responder | None = Field(default=None, exclude=True)

    @field_validator("turns", mode="before")
    @classmethod
    def _text_turns(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return tuple({"text": item} if isinstance(item, str) else item for item in value)
        return value

    @classmethod
    def of(cls, *turns: ModelTurn | str, **settings: Any) -> Script:
        """Build a script from turns given in order: ``Script.of("Hi", ModelTurn(...))``."""
        return cls(
            turns=tuple(ModelTurn(t) if isinstance(t, str) else t for t in turns), **settings
        )
