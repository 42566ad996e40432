"""Stream parts: the normalized events of a turn, named as in the AI SDK stream protocol.

The models live in :mod:`harness_core.parts.models`; import them from :mod:`harness_core`.
"""

from harness_core.parts.models import *  # noqa: F403
from harness_core.parts.models import __all__ as __all__
