"""docs/review.md's walkthrough prints what the CLI prints at a pause: each ``paused for review``
line names the revision of the pending requests, and each deciding command it suggests carries
``--revision``, as a real pause from ``cadre run`` does."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from framework.cli.app import app
from tests.conftest import SMALL_CORPUS, write_corpus

WALKTHROUGH = Path(__file__).parent.parent / "docs" / "review.md"
PAUSED = re.compile(
    r"paused for review: thread \S+ has \d+ pending request\(s\) \(revision [0-9a-f]{10}\)"
)
DECIDING = re.compile(r"(?:\$ )?cadre (?:approve|edit|reject|respond) .*")
REVISION = re.compile(r".* --revision [0-9a-f]{10}")


def _continued(lines: list[str]) -> list[str]:
    """The commands under each ``continue with`` line."""
    found, inside = [], False
    for line in lines:
        if line.startswith("continue with "):
            inside = True
        elif inside and line.startswith("  cadre "):
            found.append(line.strip())
        else:
            inside = False
    return found


def _checked(lines: list[str]) -> None:
    pauses = [line for line in lines if line.startswith("paused for review:")]
    assert pauses and all(PAUSED.fullmatch(line) for line in pauses), pauses
    suggested = _continued(lines)
    assert suggested[0].startswith("cadre show ")
    deciding = [command for command in suggested if DECIDING.fullmatch(command)]
    assert deciding and all(REVISION.fullmatch(command) for command in deciding), deciding


def test_a_real_pause_prints_the_revision_and_suggests_commands_that_pass_it(
    tmp_path: Path,
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    run = ["run", "How are runs checkpointed?", "--review", "plan", "--corpus", str(corpus)]
    home = {"CADRE_HOME": str(tmp_path / "home")}  # the commands it suggests then name no home
    ran = CliRunner().invoke(app, [*run, "--thread", "demo", "--no-trace"], env=home)
    assert ran.exit_code == 0, ran.output
    _checked(ran.stdout.splitlines())


def test_the_walkthrough_shows_the_revision_at_every_pause_and_decision() -> None:
    blocks = re.findall(r"^```\n(.*?)^```", WALKTHROUGH.read_text(encoding="utf-8"), re.M | re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    _checked(lines)
