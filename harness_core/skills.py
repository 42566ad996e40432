"""Skills: named instructions with supporting files that a runtime loads when a task needs them.

``HarnessAgent(skills=[Skill(name, description, content, files=[...])])`` hands them to the
adapter (``StartRequest.skills``), which installs them where its runtime reads skills (the
`Agent Skills` layout: ``<skills dir>/<name>/SKILL.md`` plus the files) or offers them
through a tool; see each adapter's page. An adapter without the ``skills`` capability
refuses at construction (:class:`~harness_core.errors.HarnessCapabilityUnsupportedError`).

Everything is validated when the :class:`Skill` is built: the name is the Agent Skills
name (lowercase letters, digits, single hyphens, at most 64 characters), the description is
1 to 1024 characters, and each file path is a relative POSIX path without ``..``, ``.``,
empty segments, backslashes or a drive, and not ``SKILL.md`` itself. :func:`install_skills`
writes them under one directory and refuses any path that would leave it (symbolic links
included): fail closed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import attrs

from harness_core.errors import HarnessConfigurationError

__all__ = ["Skill", "SkillFile", "install_skills", "parse_skills"]

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
SKILL_FILE = "SKILL.md"


def _check_path(path: object) -> str:
    if not isinstance(path, str) or not path:
        raise HarnessConfigurationError(f"a skill file path must be a non-empty string, got {path!r}")
    if "\\" in path or "\x00" in path or path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        raise HarnessConfigurationError(f"skill file path {path!r} must be a relative POSIX path")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise HarnessConfigurationError(f"skill file path {path!r} must not contain '..', '.' or empty segments")
    if path == SKILL_FILE:
        raise HarnessConfigurationError(f"skill file path {SKILL_FILE!r} is reserved for the skill's content")
    return str(PurePosixPath(path))


@attrs.frozen
class SkillFile:
    """One supporting file of a skill.

    Attributes:
        path: relative POSIX path inside the skill's directory (``scripts/run.sh``).
        content: the file's text (UTF-8) or bytes.
        executable: install it with the executable bit (scripts).
    """

    path: str = attrs.field(converter=_check_path)
    content: str | bytes = ""
    executable: bool = False


def _files(value: Iterable[SkillFile | tuple[str, str | bytes]]) -> tuple[SkillFile, ...]:
    files: list[SkillFile] = []
    for item in value:
        if isinstance(item, SkillFile):
            files.append(item)
        elif isinstance(item, tuple) and len(item) == 2:
            files.append(SkillFile(item[0], item[1]))
        else:
            raise HarnessConfigurationError(f"a skill file is a SkillFile or a (path, content) pair, got {item!r}")
    paths = [f.path for f in files]
    duplicated = sorted({p for p in paths if paths.count(p) > 1})
    if duplicated:
        raise HarnessConfigurationError(f"skill files listed twice: {', '.join(duplicated)}")
    return tuple(files)


@attrs.frozen
class Skill:
    """A skill (the Agent Skills format).

    Attributes:
        name: lowercase letters, digits and single hyphens, at most 64 characters.
        description: when to use it (shown to the model), 1-1024 characters.
        content: the instructions (the body of ``SKILL.md``, Markdown).
        files: supporting files (:class:`SkillFile` or ``(path, content)`` pairs).

    Raises:
        HarnessConfigurationError: a bad name, description or file path.
    """

    name: str
    description: str
    content: str
    files: tuple[SkillFile, ...] = attrs.field(default=(), converter=_files)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or len(self.name) > MAX_NAME or not _NAME.match(self.name):
            raise HarnessConfigurationError(
                f"skill name {self.name!r} must be lowercase letters, digits and single hyphens, at most {MAX_NAME}")
        if not isinstance(self.description, str) or not self.description.strip() \
                or len(self.description) > MAX_DESCRIPTION:
            raise HarnessConfigurationError(f"skill {self.name!r}: the description must be 1-{MAX_DESCRIPTION} characters")
        if not isinstance(self.content, str):
            raise HarnessConfigurationError(f"skill {self.name!r}: content must be a string")

    def markdown(self) -> str:
        """``SKILL.md``: YAML front matter (``name``, ``description``; JSON-quoted) and the content."""
        description = json.dumps(" ".join(self.description.split()))
        return f"---\nname: {self.name}\ndescription: {description}\n---\n\n{self.content.rstrip()}\n"

    def file(self, path: str) -> SkillFile | None:
        """The supporting file at ``path``, or ``None``."""
        return next((f for f in self.files if f.path == path), None)


def parse_skills(value: object) -> tuple[Skill, ...]:
    """``HarnessAgent(skills=...)``: a sequence of :class:`Skill` with distinct names.

    Raises:
        HarnessConfigurationError: not a sequence of skills, or a name used twice.
    """
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise HarnessConfigurationError(f"skills must be a list of Skill, got {type(value).__name__}")
    skills: list[Skill] = []
    for item in value:
        if not isinstance(item, Skill):
            raise HarnessConfigurationError(f"skills must be a list of Skill, got an item of type {type(item).__name__}")
        skills.append(item)
    names = [s.name for s in skills]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise HarnessConfigurationError(f"skills named twice: {', '.join(duplicated)}")
    return tuple(skills)


def _inside(root: Path, target: Path) -> Path:
    resolved = target.resolve()
    if resolved != root and root not in resolved.parents:
        raise HarnessConfigurationError(f"skill path {str(target)!r} leaves the skills directory {str(root)!r}")
    return resolved


def install_skills(skills: Sequence[Skill], root: str | os.PathLike[str]) -> list[Path]:
    """Write ``skills`` under ``root`` as ``<root>/<name>/SKILL.md`` plus their files.

    ``root`` is created (mode 0700) when missing; an existing skill directory of the same
    name is replaced file by file. Returns the skill directories.

    Raises:
        HarnessConfigurationError: a path would resolve outside ``root`` (a symbolic link
            in the way, say); nothing is written past it.
    """
    base = Path(root)
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    base = base.resolve()
    installed: list[Path] = []
    for skill in skills:
        directory = _inside(base, base / skill.name)
        directory.mkdir(exist_ok=True, mode=0o700)
        _write(_inside(base, directory / SKILL_FILE), skill.markdown())
        for item in skill.files:
            target = directory / item.path
            _inside(base, target.parent).mkdir(parents=True, exist_ok=True, mode=0o700)
            _write(_inside(base, target), item.content, executable=item.executable)
        installed.append(directory)
    return installed


def _write(path: Path, content: Any, *, executable: bool = False) -> None:
    if path.is_symlink():
        raise HarnessConfigurationError(f"skill path {str(path)!r} is a symbolic link")
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    path.write_bytes(data)
    path.chmod(0o700 if executable else 0o600)
