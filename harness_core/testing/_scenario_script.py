"""Play a conformance :class:`~harness_core.testing.conformance.Scenario` on a scripted model server.

The conformance suite describes its model abstractly (prompts, and for each the responses:
text, tool calls by common built-in or host tool name, "echo the results", "fail"). An
adapter whose runtime talks to a model over HTTP serves that model with a
:class:`ScriptedModelServer` answering :func:`scenario_script`'s :class:`Script`. This module
imports nothing of the suite at run time, so ``harness_core.testing`` stays light.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeAlias

from harness_core.testing._errors import ToolNotOfferedError
from harness_core.testing._request import ModelRequest
from harness_core.testing._script import ModelTurn, Script, ToolCallSpec

if TYPE_CHECKING:
    from harness_core.testing.conformance import ModelResponse, Scenario, ScenarioCall

__all__ = ["ScenarioFailure", "find_prompt_position", "received_tool_results", "scenario_script"]

# The hooks' shapes (strings: the conformance types are imported for type checking only).
_PromptLocator: TypeAlias = "Callable[[Scenario, ModelRequest], tuple[int, int] | None]"
_ResultCollector: TypeAlias = Callable[[ModelRequest], Sequence[str]]
_ToolNamer: TypeAlias = "Callable[[ScenarioCall], str]"


class ScenarioFailure(RuntimeError):
    """Raised by :func:`scenario_script`'s responder for a ``fail`` response.

    The scripted server answers that request with HTTP 500 and records the exception in
    ``server.errors``; a ``scenario_environment`` should accept these and fail on any other
    recorded error. ``str(error)`` is the scenario's failure message.
    """


def find_prompt_position(scenario: Scenario, request: ModelRequest) -> tuple[int, int] | None:
    """Which scenario prompt ``request`` answers, and how far into its responses it is.

    The user messages are searched newest first. A message whose text *is* a prompt picks
    that prompt (the first, when a prompt repeats); otherwise a message that *contains*
    prompts (a runtime wrapping the prompt in reminders or context) picks the latest of them
    in scenario order; a message containing none is skipped. The response index is the
    number of assistant messages after that user message, so extra requests a runtime makes
    on its own (titles, compaction, a retried request) do not shift the script.

    Returns ``(prompt index, response index)``, or ``None`` when no user message carries a
    prompt.
    """
    prompts = [p.prompt for p in scenario.prompts]
    for position in range(len(request.messages) - 1, -1, -1):
        message = request.messages[position]
        if message.role != "user":
            continue
        if message.text in prompts:
            found = prompts.index(message.text)
        else:
            contained = [i for i, prompt in enumerate(prompts) if prompt in message.text]
            if not contained:
                continue
            found = contained[-1]
        answered = sum(1 for m in request.messages[position + 1 :] if m.role == "assistant")
        return found, answered
    return None


def received_tool_results(request: ModelRequest) -> list[str]:
    """The texts of the tool results after the newest assistant message, oldest first.

    These are the results of the model's previous response, whether the wire carried them
    in ``tool`` messages or (Anthropic) in the user message that follows.
    """
    texts: list[str] = []
    for message in reversed(request.messages):
        if message.role == "assistant":
            break
        texts[:0] = [result.text for result in message.tool_results]
    return texts


def _call_name(call: ScenarioCall) -> str:
    return call.tool


def scenario_script(
    scenario: Scenario,
    *,
    tool_name: _ToolNamer = _call_name,
    prompt_position: _PromptLocator = find_prompt_position,
    received_results: _ResultCollector = received_tool_results,
    side_answer: str = "OK.",
    final_text: str = "Done.",
) -> Script:
    """The :class:`Script` a scripted model server plays ``scenario`` with.

    Every request the runtime sends is answered by its place in the scenario, not by
    counting requests, so a runtime's own extra model calls do not derail it:

    * a request offering no tools (titles, summaries) gets ``side_answer``;
    * ``prompt_position(scenario, request)`` (default :func:`find_prompt_position`) names
      the prompt and the response; past a prompt's last response, and for a request no
      prompt matches, the answer is ``final_text``;
    * a ``fail`` response raises :class:`ScenarioFailure` (the server answers HTTP 500);
    * an ``echo_results`` response says its text followed by
      ``received_results(request)`` (default :func:`received_tool_results`), joined by
      spaces; an ``echo_seen`` response then adds each of its markers the request's JSON
      body contains (what reached the model: a steering message, a skill listed);
    * each call is named ``tool_name(call)`` (default: the scenario's name, ``call.tool``).
      A built-in is kept when that name resolves against the offered tools
      (:meth:`ModelRequest.resolve_tool`: exact, then common-name aliases such as ``bash`` ->
      ``Bash``, whose arguments the server then renames to the runtime's schema); a host tool
      only when offered under exactly that name. Calls to tools the request did not offer
      (filtered out) are dropped, as a model cannot call them; a response left with neither
      text nor calls answers ``""``. Call ids are the scenario's.

    Args:
        scenario: the conformance scenario to play.
        tool_name: ``(ScenarioCall) -> str``, the name a call uses in the scripted turn.
            Hook it when your runtime renames host tools on the wire, e.g. Claude Code's
            ``lambda call: call.tool if call.builtin else f"mcp__harness__{call.tool}"``.
        prompt_position: ``(Scenario, ModelRequest) -> (prompt index, response index) |
            None``; hook it when your runtime's requests need another reading.
        received_results: ``(ModelRequest) -> Sequence[str]``, the tool-result texts an
            ``echo_results`` response repeats.
        side_answer: the answer to tool-less requests.
        final_text: the answer past the scenario (and to requests it does not cover).

    Returns a :class:`Script` whose ``respond`` does all of the above; the script holds no
    state, so one script may serve several processes of the same test.

    Example::

        with ScriptedModelServer(scenario_script(scenario)) as server:
            ...
        assert all(isinstance(e, ScenarioFailure) for e in server.errors)
    """

    def respond(request: ModelRequest) -> ModelTurn | None:
        if request.is_side_request:
            return None
        position = prompt_position(scenario, request)
        if position is None:
            return None
        prompt, index = position
        responses = scenario.prompts[prompt].responses
        if index >= len(responses):
            return ModelTurn(final_text)
        return _turn(responses[index], request)

    def _turn(response: ModelResponse, request: ModelRequest) -> ModelTurn:
        if response.fail is not None:
            raise ScenarioFailure(response.fail)
        text = response.text
        if response.echo_results:
            text = " ".join([response.text or "", *received_results(request)]).strip()
        if response.echo_seen:
            body = json.dumps(request.body, ensure_ascii=False)
            text = " ".join([text or "", *(m for m in response.echo_seen if m in body)]).strip()
        offered = set(request.tool_names)
        calls: list[ToolCallSpec] = []
        for call in response.calls:
            name = tool_name(call)
            if call.builtin:
                try:
                    request.resolve_tool(name)
                except ToolNotOfferedError:
                    continue
            elif name not in offered:
                continue
            calls.append(ToolCallSpec(name, dict(call.input), id=call.id))
        return ModelTurn("" if text is None and not calls else text, tool_calls=calls)

    return Script(respond=respond, side_answer=side_answer, final_text=final_text)
