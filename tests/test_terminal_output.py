"""``cadre`` prints no terminal control codes, whatever text a model, a remote agent or a
question carries: a colour, a clipboard write (OSC 52), a hyperlink (OSC 8), a cursor move, a C1
control (see :mod:`framework.cli._terminal`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from framework.cli._terminal import printable
from tests.conftest import SMALL_CORPUS, write_corpus

CADRE = [sys.executable, "-c", "from framework.cli.main import main; main()"]
HOSTILE = (
    "Which \x1b[31mred\x1b[0m\x1b]52;c;cm0gLXJmIH4=\x07 key \x1b]8;;https://evil.example\x1b\\"
    "link\x1b]8;;\x1b\\ \x1b[2J\x9b1m\x07seals checkpoints?"
)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (HOSTILE, "Which red key link seals checkpoints?"),
        ("tabs\tand\nnewlines stay\r\n", "tabs\tand\nnewlines stay\n"),
        ("an OSC cut off \x1b]0;title\nnext line", "an OSC cut off \nnext line"),
    ],
)
def test_printable_text_keeps_the_words_and_drops_every_control_code(text: str, kept: str) -> None:
    assert printable(text) == kept


def test_cadre_prints_a_question_holding_control_codes_without_them(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", SMALL_CORPUS)
    home = str(tmp_path / "home")
    ran = subprocess.run(
        [*CADRE, "run", HOSTILE, "--corpus", str(corpus), "--home", home, "--thread", "t1"],
        capture_output=True,
        timeout=300,
        check=False,
    )
    shown = subprocess.run(
        [*CADRE, "show", "t1", "--home", home], capture_output=True, timeout=300, check=False
    )
    assert ran.returncode == 0 and shown.returncode == 0, ran.stderr + shown.stderr
    for output in (ran.stdout, ran.stderr, shown.stdout, shown.stderr):
        assert b"\x1b" not in output and b"\x07" not in output and b"\xc2\x9b" not in output
    assert b"Which red key link seals checkpoints?" in shown.stdout
