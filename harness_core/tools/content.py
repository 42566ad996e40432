"""Rich tool results: the content items of a :class:`~harness_core.ToolOutput`.

A tool may return ``{"content": [item, ...], "isError": ...}`` (the MCP ``CallToolResult``
shape the reference ``ToolOutput`` takes). The items keep their kind on the way to the
runtime instead of being flattened to text:

* ``{"type": "text", "text": str}``;
* ``{"type": "image", "data": base64, "mimeType": "image/png"}`` (MCP); the AI SDK's
  ``{"type": "image-data" | "media", "data": base64, "mediaType": ...}`` is read the same;
* any other typed item (``audio``, ``resource``, ``resource_link``, ``file-data``...),
  kept as it is.

:func:`content_items` reads them from an output (``()`` when the output is plain text or
another JSON value). A runtime takes the kinds it can carry
(a set of kinds, e.g. ``{"text", "image"}``); :func:`render_content` gives it
those items and, for every other one, a visible placeholder in the text the model reads
plus a warning (logged here, and carried by the ``tool-result`` part, see
``ToolResultPart.warnings``). An item is never dropped silently.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias

import attrs

__all__ = [
    "TEXT_ONLY",
    "ContentItem",
    "RenderedContent",
    "content_items",
    "fallback_text",
    "item_placeholder",
    "items_from_blocks",
    "render_content",
    "unsupported_warnings",
]

logger = logging.getLogger("harness_core.tool_content")

ContentKind: TypeAlias = Literal["text", "image", "other"]

TEXT_ONLY: Final[frozenset[str]] = frozenset({"text"})
"""The kinds a runtime that takes only text carries (the default for adapters)."""

_IMAGE_TYPES: Final = frozenset({"image", "image-data", "media"})
_KNOWN_TYPES: Final = frozenset({"text", "image", "image-data", "media", "audio", "resource", "resource_link",
                                 "file-data", "file-url", "image-url", "json"})


@attrs.frozen
class ContentItem:
    """One item of a rich tool result.

    Attributes:
        kind: ``text``, ``image`` (base64 ``data`` with ``media_type``), or ``other``.
        text: the text of a ``text`` item.
        data: base64 data of an ``image`` item.
        media_type: an image's MIME type (``image/png``).
        raw: the item as the tool returned it (JSON), for runtimes that pass other kinds
            through and for placeholders.
    """

    kind: ContentKind
    text: str | None = None
    data: str | None = None
    media_type: str | None = None
    raw: Mapping[str, Any] = attrs.field(factory=dict, eq=False)

    @property
    def size(self) -> int:
        """Decoded bytes of base64 ``data`` (approximate), else 0."""
        data = self.data if self.data is not None else self.raw.get("data")
        return len(data) * 3 // 4 if isinstance(data, str) else 0


def _item(block: Mapping[str, Any]) -> ContentItem:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return ContentItem("text", text=block["text"], raw=block)
    media = block.get("mimeType", block.get("mediaType"))
    is_image = kind in _IMAGE_TYPES and isinstance(block.get("data"), str) and isinstance(media, str) \
        and (kind != "media" or media.startswith("image/"))
    if is_image:
        return ContentItem("image", data=block["data"], media_type=media, raw=block)
    return ContentItem("other", raw=block)


def items_from_blocks(blocks: object) -> tuple[ContentItem, ...] | None:
    """Items from a list of typed content blocks, or ``None`` when ``blocks`` is not one
    (not a non-empty list of mappings whose ``type`` is a known content type)."""
    if not isinstance(blocks, Sequence) or isinstance(blocks, str | bytes) or not blocks:
        return None
    if not all(isinstance(b, Mapping) and b.get("type") in _KNOWN_TYPES for b in blocks):
        return None
    return tuple(_item(b) for b in blocks)


def content_items(output: object) -> tuple[ContentItem, ...]:
    """The content items of a tool output (a ``ToolOutput``: its ``value``), or ``()``
    when it is plain text or a JSON value without typed content blocks.

    The ``value`` is either the list of blocks (a host tool's ``{"content": [...]}``) or a
    mapping with a ``content`` list (an MCP result kept by the built-in harness).
    """
    value = getattr(output, "value", None)
    if value is None:  # plain text (most results)
        return ()
    if isinstance(value, Mapping) and "content" in value:
        value = value["content"]
    return items_from_blocks(value) or ()


def item_placeholder(item: ContentItem) -> str:
    """The visible line a model reads instead of an item its runtime cannot take:
    ``[image: image/png, 68 bytes]``, ``[resource: file:///x]``, ``[audio: audio/wav, N bytes]``."""
    if item.kind == "image":
        return f"[image: {item.media_type}, {item.size} bytes]"
    kind = str(item.raw.get("type", "item"))
    resource = item.raw.get("resource")
    if isinstance(resource, Mapping):
        if isinstance(resource.get("text"), str):
            return str(resource["text"])
        return f"[resource: {resource.get('uri')}]"
    if isinstance(item.raw.get("uri"), str):
        return f"[{kind}: {item.raw['uri']}]"
    media = item.raw.get("mimeType", item.raw.get("mediaType"))
    return f"[{kind}: {media}, {item.size} bytes]" if media else f"[{kind}]"


def fallback_text(items: Iterable[ContentItem]) -> str:
    """The text of ``items`` with a placeholder for every non-text item, one per line."""
    return "\n".join(item.text if item.kind == "text" and item.text is not None else item_placeholder(item)
                     for item in items)


@attrs.frozen
class RenderedContent:
    """What a runtime sends for a rich result (see :func:`render_content`).

    Attributes:
        items: the items in order, a placeholder ``text`` item standing in for each one
            the runtime cannot take.
        text: the same as one text (for runtimes or fields that take a string).
        warnings: one message per replaced item (empty when everything was carried).
    """

    items: tuple[ContentItem, ...]
    text: str
    warnings: tuple[str, ...]


def unsupported_warnings(items: Iterable[ContentItem], accepts: frozenset[str], runtime: str) -> tuple[str, ...]:
    """One warning per item whose kind ``accepts`` lacks (``other`` items are accepted only
    when ``accepts`` has ``"other"`` or their own ``type``)."""
    return tuple(
        f"{runtime} cannot pass a tool result's {item.raw.get('type', item.kind)} item to the model; "
        f"it sees {item_placeholder(item)!r} instead"
        for item in items if not _accepted(item, accepts)
    )


def _accepted(item: ContentItem, accepts: frozenset[str]) -> bool:
    return item.kind in accepts or str(item.raw.get("type")) in accepts


def render_content(output: object, accepts: frozenset[str], runtime: str, *, log: bool = True) -> RenderedContent:
    """The items of ``output`` as a runtime taking the kinds ``accepts`` receives them.

    Args:
        output: a ``ToolOutput``; plain text becomes one text item (its ``content``).
        accepts: the kinds the runtime carries (``{"text", "image"}``; ``"other"`` or an
            item's own ``type`` for pass-through).
        runtime: names the runtime in warnings (``"Codex"``).
        log: log each warning (``harness_core.tool_content``, level WARNING).
    """
    items = content_items(output)
    if not items:
        text = str(getattr(output, "content", ""))
        return RenderedContent((ContentItem("text", text=text, raw={"type": "text", "text": text}),), text, ())
    warnings = unsupported_warnings(items, accepts, runtime)
    sent = tuple(item if _accepted(item, accepts) else
                 ContentItem("text", text=item_placeholder(item), raw={"type": "text", "text": item_placeholder(item)})
                 for item in items)
    if log:
        for warning in warnings:
            logger.warning("%s", warning)
    return RenderedContent(sent, fallback_text(sent), warnings)
