"""Recording late tool results in a Claude Code session transcript.

Claude Code keeps each session as JSON lines in
``<config dir>/projects/<escaped cwd>/<session id>.jsonl``. When a turn that waited for
the host is continued in a new process, the old CLI (which held the call open) is gone;
the transcript ends with the assistant's ``tool_use`` and no result. Appending the
result as the user entry the CLI itself would have written (parented on the assistant
entry holding the ``tool_use``, as Claude Code does for parallel calls) and resuming
with ``CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1`` makes the CLI carry on from the result:
the model sees its call answered in place (followed by Claude Code's own "Continue from
where you left off." note) and no call is repeated.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

__all__ = [
    "LateResult",
    "TranscriptError",
    "append_results",
    "find_transcript",
    "project_dir_name",
    "relocate_transcript",
]


class TranscriptError(RuntimeError):
    """The session transcript is missing or does not hold the calls to answer."""


@attrs.frozen
class LateResult:
    """A tool result to record: the call id, the text the model sees, the error flag."""

    tool_use_id: str
    content: str
    is_error: bool = False


def find_transcript(config_dir: Path, session_id: str) -> Path:
    """The transcript file of ``session_id`` under ``config_dir/projects``.

    Raises:
        TranscriptError: no project directory holds it.
    """
    projects = config_dir / "projects"
    matches = sorted(projects.glob(f"*/{session_id}.jsonl")) if projects.is_dir() else []
    matches = [path for path in matches if path.stat().st_size > 0]
    if not matches:
        raise TranscriptError(f"no transcript for Claude Code session {session_id!r} under {projects}")
    return max(matches, key=lambda path: path.stat().st_mtime)


_MAX_DIR_NAME = 200


def _js_hash(text: str) -> str:
    value = 0
    for char in text:
        value = ((value << 5) - value + ord(char)) & 0xFFFFFFFF
    if value >= 0x80000000:
        value -= 0x100000000
    value = abs(value)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if value == 0:
            return out


def project_dir_name(cwd: Path) -> str:
    """The directory name Claude Code keeps a workspace's transcripts under.

    Every character that is not an ASCII letter or digit becomes ``-``; names longer than
    200 characters are cut and suffixed with a hash of the path, as Claude Code does.
    """
    path = os.path.realpath(cwd)
    name = re.sub(r"[^a-zA-Z0-9]", "-", path)
    if len(name) <= _MAX_DIR_NAME:
        return name
    return f"{name[:_MAX_DIR_NAME]}-{_js_hash(path)}"


def relocate_transcript(config_dir: Path, session_id: str, cwd: Path) -> Path | None:
    """Copy a session's transcript to the project directory of ``cwd`` if it lives elsewhere.

    Claude Code resumes a session only from the current workspace's project directory;
    a suspended session continued in another workspace path needs its transcript there.
    Returns the new path, or ``None`` when nothing was copied (absent or already there).
    """
    try:
        source = find_transcript(config_dir, session_id)
    except TranscriptError:
        return None
    target = config_dir / "projects" / project_dir_name(cwd) / f"{session_id}.jsonl"
    if target.exists():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def _entries(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _block_ids(entry: dict[str, Any], block_type: str, key: str) -> set[str]:
    """``block[key]`` of the entry's content blocks of type ``block_type``."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return set()
    return {str(block.get(key)) for block in content if isinstance(block, dict) and block.get("type") == block_type}


def append_results(path: Path, results: Iterable[LateResult]) -> list[str]:
    """Append one user entry per result to the transcript at ``path``.

    Each entry is parented on the assistant entry holding the matching ``tool_use``.
    Results for calls that already have one in the transcript are skipped.

    Returns:
        The call ids answered.

    Raises:
        TranscriptError: a call id has no ``tool_use`` in the transcript.
    """
    entries = _entries(path)
    answered: set[str] = set()
    owners: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if entry.get("type") == "assistant" and not entry.get("isSidechain"):
            for call_id in _block_ids(entry, "tool_use", "id"):
                owners[call_id] = entry
        elif entry.get("type") == "user":
            answered |= _block_ids(entry, "tool_result", "tool_use_id")
    lines: list[str] = []
    written: list[str] = []
    for result in results:
        if result.tool_use_id in answered:
            continue
        owner = owners.get(result.tool_use_id)
        if owner is None:
            raise TranscriptError(f"the transcript {path} has no tool call {result.tool_use_id!r}")
        now = datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")
        entry = {
            "parentUuid": owner.get("uuid"),
            "isSidechain": False,
            "userType": "external",
            "cwd": owner.get("cwd"),
            "sessionId": owner.get("sessionId"),
            "version": owner.get("version"),
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": result.tool_use_id,
                        "type": "tool_result",
                        "content": result.content,
                        "is_error": result.is_error,
                    }
                ],
            },
            "uuid": str(uuid.uuid4()),
            "timestamp": now,
            "toolUseResult": ("Error: " + result.content) if result.is_error else result.content,
            "sourceToolAssistantUUID": owner.get("uuid"),
        }
        lines.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
        written.append(result.tool_use_id)
        answered.add(result.tool_use_id)
    if lines:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            ends_cleanly = handle.tell() == 0 or (handle.seek(-1, 2) >= 0 and handle.read(1) == b"\n")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(("" if ends_cleanly else "\n") + "\n".join(lines) + "\n")
    return written
