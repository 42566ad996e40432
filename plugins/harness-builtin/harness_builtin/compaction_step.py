"""The compaction step of a built-in turn: when and how older turns are summarized.

Before a model step, :meth:`Compactor.needed` compares the context size (the larger of the
model's last reported size and the history's estimate) with ``compact_threshold_tokens``;
:meth:`Compactor.compact` then asks the model for a summary of the older messages (see
:mod:`harness_builtin.compaction`) and yields a ``compaction`` call and result part. A
manual compaction (``session.compact()``) runs the same step.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from harness_core import COMPACTION_TOOL, ToolCallPart, ToolResultPart

from .compaction import SUMMARY_PREFIX, split_for_compaction, summary_request
from .conversation import UserMessage
from .live import LiveConversation
from .offer import ToolOffer
from .settings import TurnLimits
from .streaming import ResponseStreamer

__all__ = ["Compactor"]


class Compactor:
    """Compacts one session's conversation within a turn.

    Args:
        conversation: the live conversation (its history is replaced).
        offer: the tool offer (for the system prompt's size).
        limits: the turn limits (threshold, messages kept).
        streamer: the turn's response streamer (the summary request).
    """

    def __init__(self, conversation: LiveConversation, offer: ToolOffer, limits: TurnLimits,
                 streamer: ResponseStreamer) -> None:
        self._conversation = conversation
        self._offer = offer
        self._limits = limits
        self._streamer = streamer

    def needed(self) -> bool:
        """Whether the context is over ``compact_threshold_tokens`` (never when it is None)."""
        threshold = self._limits.compact_threshold_tokens
        if threshold is None:
            return False
        conversation = self._conversation
        return max(conversation.estimate(self._offer.system()), conversation.context_tokens) > threshold

    async def compact(self, trigger: str) -> AsyncIterator[object]:
        """Summarize the older messages; yields the ``compaction`` call and result parts
        (the result says ``skipped`` when nothing is older than the messages kept).

        Raises:
            ModelError: the summary request failed.
            Aborted: the turn was aborted.
        """
        conversation = self._conversation
        call_id = f"compaction-{conversation.compactions + 1}"
        call_input = {
            "trigger": trigger, "messagesBefore": len(conversation.messages),
            "tokensBefore": conversation.estimate(self._offer.system()),
        }
        yield ToolCallPart(tool_call_id=call_id, tool_name=COMPACTION_TOOL, input=call_input,
                           provider_executed=True, dynamic=True)
        older, kept = split_for_compaction(conversation.messages, self._limits.compact_keep_messages)
        if not older:
            yield ToolResultPart(tool_call_id=call_id, tool_name=COMPACTION_TOOL, input=call_input,
                                 output={"skipped": "nothing older than the recent messages to compact"},
                                 provider_executed=True, dynamic=True)
            return
        response = await self._streamer.collect(summary_request(older))
        if response.done is not None:
            conversation.add_usage(response.done.usage)
        summary = response.text.strip() or "(the model returned an empty summary)"
        conversation.compacted(UserMessage(text=SUMMARY_PREFIX + summary, kind="summary"), kept)
        yield ToolResultPart(
            tool_call_id=call_id, tool_name=COMPACTION_TOOL, input=call_input,
            output={"summary": summary, "messagesAfter": len(conversation.messages),
                    "tokensAfter": conversation.estimate(self._offer.system())},
            provider_executed=True, dynamic=True,
        )
