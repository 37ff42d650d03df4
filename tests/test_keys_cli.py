"""``cadre keys``: status, rotate, reencrypt and retire on a home with a finished thread."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus

runner = CliRunner()


def _usage(home: Path) -> dict[str, tuple[int, str]]:
    done = runner.invoke(app, ["keys", "status", "--home", str(home)])
    assert done.exit_code == 0, done.stderr
    rows = [re.split(r"\s+", line.strip()) for line in done.stdout.splitlines() if line.strip()]
    return {row[0]: (int(row[1]), row[3] if len(row) > 3 else "") for row in rows}


def test_rotate_reencrypt_retire_keeps_every_thread_readable(
    tmp_path: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CADRE_KEYS", raising=False)
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    for thread in ("a", "b"):
        args = ["run", "How do workers retry?", "--corpus", str(corpus), "--home", str(home)]
        assert runner.invoke(app, [*args, "--thread", thread, "--no-trace"]).exit_code == 0
    [(old, (blobs, role))] = _usage(home).items()
    assert blobs > 0 and role == "primary"

    rotated = runner.invoke(app, ["keys", "rotate", "--home", str(home)])
    assert rotated.exit_code == 0, rotated.stderr
    usage = _usage(home)
    [new] = [key for key, (_, role) in usage.items() if role == "primary"]
    assert usage[new][0] == 0 and usage[old] == (blobs, "loaded")

    refused = runner.invoke(app, ["keys", "retire", old, "--home", str(home)])
    assert refused.exit_code == 2 and "still sealed" in refused.stderr

    moved = runner.invoke(app, ["keys", "reencrypt", "--home", str(home)])
    assert moved.exit_code == 0, moved.stderr
    assert f"rewrote {blobs} blob(s)" in moved.stdout
    assert _usage(home) == {new: (blobs, "primary"), old: (0, "loaded")}
    repeated = runner.invoke(app, ["keys", "reencrypt", "--home", str(home)])
    assert "rewrote 0 blob(s)" in repeated.stdout  # nothing left under the old key

    assert runner.invoke(app, ["keys", "retire", old, "--home", str(home)]).exit_code == 0
    assert _usage(home) == {new: (blobs, "primary")}
    for thread in ("a", "b"):
        shown = runner.invoke(app, ["show", thread, "--home", str(home)])
        assert shown.exit_code == 0, shown.stderr
        assert "docs/retries.md:3" in shown.stdout
    again = runner.invoke(app, [*args, "--thread", "c", "--no-trace"])  # reads the store
    assert again.exit_code == 0, again.stderr
    assert "docs/retries.md:3" in again.stdout


def test_keys_from_the_environment_are_not_rotated_in_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CADRE_KEYS", "k1:" + "A" * 43 + "=")
    done = runner.invoke(app, ["keys", "rotate", "--home", str(tmp_path)])
    assert done.exit_code == 2 and "CADRE_KEYS" in done.stderr
    assert not (tmp_path / "keys.json").exists()
    empty = runner.invoke(app, ["keys", "status", "--home", str(tmp_path / "none")])
    assert empty.exit_code == 2 and "no threads under" in empty.stderr
