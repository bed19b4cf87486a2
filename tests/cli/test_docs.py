"""Issue 12, items 10 and 11: every command, subcommand and IOTUNE_* variable is documented; the papers are listed."""

import re
from pathlib import Path

import typer.main

from iotune.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")


def _paths(command, prefix=()):
    children = getattr(command, "commands", None)
    if not children:
        yield prefix
        return
    for name, child in children.items():
        if not child.hidden:
            yield from _paths(child, (*prefix, name))


def test_every_command_and_subcommand_has_a_section():
    headings = [line for line in COMMANDS.splitlines() if line.startswith("### ")]
    missing = []
    for path in _paths(typer.main.get_command(app)):
        group, *sub = path
        sections = [h for h in headings if re.search(rf"`iotune {re.escape(group)}\b", h)]
        if not sections or (sub and not any(sub[0] in h for h in sections)
                            and f"{group} {sub[0]}" not in COMMANDS):
            missing.append(" ".join(path))
    assert missing == []


def test_every_environment_variable_is_documented():
    used = {name for path in (ROOT / "src" / "iotune").rglob("*.py")
            for name in re.findall(r"IOTUNE_[A-Z_]+[A-Z]", path.read_text(encoding="utf-8"))}
    assert used and sorted(name for name in used if name not in COMMANDS) == []


def test_bibliography_names_the_five_papers_and_the_terms():
    text = (ROOT / "docs" / "bibliography.md").read_text(encoding="utf-8")
    for number, author in [("000", "Zhai"), ("001", "Bagbaba"), ("002", "Nicolae"), ("003", "Cameron"),
                           ("004", "You")]:
        assert re.search(rf"\| {number} \| [^|]*{author}", text), number
    for term in ("AGBs", "ARE", "Co-champions", "Default", "Effect", "Regret", "R2"):
        assert f"**{term}" in text, term
