"""Skill validation, confined installation, and the capability check (scripted adapter)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_core import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    Skill,
    SkillFile,
    install_skills,
)
from harness_core.testing import Say, ScriptedAdapter


@pytest.mark.parametrize("path", ["../x", "/etc/passwd", "a/../b", "a//b", "./a", "a\\b", "C:x", "SKILL.md", ""])
def test_bad_file_paths_are_refused(path: str) -> None:
    with pytest.raises(HarnessConfigurationError):
        SkillFile(path, "x")


@pytest.mark.parametrize("name", ["Upper", "two--hyphens", "-lead", "trail-", "a b", "x" * 65, ""])
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(HarnessConfigurationError, match="skill name"):
        Skill(name, "d", "c")


def test_description_and_duplicates_are_checked() -> None:
    with pytest.raises(HarnessConfigurationError, match="description"):
        Skill("a", " ", "c")
    with pytest.raises(HarnessConfigurationError, match="listed twice"):
        Skill("a", "d", "c", files=[("x.md", "1"), ("x.md", "2")])


def test_install_writes_the_agent_skills_layout(tmp_path: Path) -> None:
    skill = Skill("notes", 'Use for "notes": always.', "Body.", files=[SkillFile("bin/run.sh", "echo", executable=True),
                                                                         ("ref/a.md", b"bytes")])
    [folder] = install_skills([skill], tmp_path / "skills")
    assert folder == (tmp_path / "skills" / "notes").resolve()
    assert (folder / "SKILL.md").read_text() == '---\nname: notes\ndescription: "Use for \\"notes\\": always."\n---\n\nBody.\n'
    assert (folder / "bin" / "run.sh").stat().st_mode & 0o100
    assert (folder / "ref" / "a.md").read_bytes() == b"bytes"


def test_install_refuses_a_symlink_out_of_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "skills"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "ref").symlink_to(outside)
    with pytest.raises(HarnessConfigurationError, match="leaves the skills directory"):
        install_skills([Skill("notes", "d", "c", files=[("ref/a.md", "x")])], root)
    assert list(outside.iterdir()) == []


def test_an_adapter_without_skills_refuses_at_construction(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say("x")]]], workspace=tmp_path)
    with pytest.raises(HarnessCapabilityUnsupportedError, match=r"skills \(skills=\)"):
        adapter.agent(skills=[Skill("a", "d", "c")])
    with pytest.raises(HarnessConfigurationError, match="named twice"):
        adapter.agent(skills=[Skill("a", "d", "c"), Skill("a", "d", "c")])
