"""The core's default ``harness_project_event`` implementation (``trylast``).

Parts pass through unchanged, a list of parts is flattened, and anything else becomes a
``raw`` part so no runtime event is lost silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from harness_core.hook_contexts import ProjectionContext
from harness_core.hookspecs import hookimpl

if TYPE_CHECKING:
    from harness_core.parts.models import Part

__all__ = ["DefaultProjection"]


def _jsonable(event: object) -> object:
    if isinstance(event, dict | list | str | int | float | bool) or event is None:
        return event
    if attrs.has(type(event)):
        return {"kind": type(event).__name__, **attrs.asdict(event)}  # type: ignore[arg-type]
    dump = getattr(event, "model_dump", None)
    if callable(dump):
        return {"kind": type(event).__name__, **dump(mode="json")}
    return repr(event)


class DefaultProjection:
    """The ``default-projection`` plugin."""

    @hookimpl(trylast=True)
    def harness_project_event(self, event: object, context: ProjectionContext) -> Sequence[Part] | None:
        # Imported here: registering the core plugins must not define the part models.
        from harness_core.parts.models import Part, RawPart

        if isinstance(event, Part):
            return [event]
        if isinstance(event, list | tuple) and all(isinstance(item, Part) for item in event):
            return list(event)
        return [RawPart(raw_value=_jsonable(event))]
