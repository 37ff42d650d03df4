"""The ``cadre`` commands on PostgreSQL: ``--db`` (or ``$CADRE_DB``) moves a data home's
checkpoints and memory into the database; keys and traces stay in the home."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database import DATABASE_VARIABLE
from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus

runner = CliRunner()
QUESTION = "How do workers retry transient errors?"


@pytest.fixture(autouse=True)
def _restore_database_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--db`` sets ``$CADRE_DB`` for the process: put it back after each test."""
    monkeypatch.setenv(DATABASE_VARIABLE, "")


def _dump(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            f"{schema}.{table}"
            for schema, table in conn.execute(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_schema LIKE 'cadre_%%'"
            )
        ]
        return repr([conn.execute(f"SELECT * FROM {table}").fetchall() for table in tables])


def _schemas(url: str) -> set[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        return {name for (name,) in conn.execute("SELECT nspname FROM pg_namespace")}


def test_a_run_on_postgres_keeps_nothing_but_keys_in_the_home(
    tmp_path: Path, postgres_url: str, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    common = ["--home", str(home)]
    ran = runner.invoke(
        app,
        [
            *("--db", postgres_url, "run", QUESTION, "--team", "research"),
            *("--corpus", str(corpus), *common, "--no-trace", "--thread", "pg-1"),
        ],
    )
    assert ran.exit_code == 0, ran.stderr
    assert "(`docs/retries.md:3`)" in ran.stdout
    assert (home / "keys.json").is_file()
    assert not list(home.glob("*.sqlite*"))
    dump = _dump(postgres_url)
    assert "cadre_checkpoints" in _schemas(postgres_url)
    assert QUESTION not in dump
    assert "exponential backoff" not in dump  # a corpus chunk, sealed in the store
    assert str(corpus) not in dump
    threads = runner.invoke(app, ["--db", postgres_url, "threads", *common])
    assert threads.exit_code == 0, threads.stderr
    assert "pg-1" in threads.stdout
    assert "done" in threads.stdout


def test_run_takes_db_as_its_own_option_too(
    tmp_path: Path, postgres_url: str, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    home = tmp_path / "home"
    ran = runner.invoke(
        app,
        [
            *("run", QUESTION, "--team", "research", "--corpus", str(corpus)),
            *("--home", str(home), "--db", postgres_url, "--no-trace", "--thread", "pg-2"),
        ],
    )
    assert ran.exit_code == 0, ran.stderr
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        (threads,) = conn.execute(
            "SELECT count(DISTINCT thread_id) FROM cadre_checkpoints.cadre_checkpoints"
        ).fetchone() or (0,)
    assert threads == 1


def test_a_db_that_is_not_a_postgres_url_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--db", "sqlite:///tmp/x.db", "threads", "--home", str(tmp_path)])
    assert "takes a postgresql://user@host:port/dbname URL" in one_line_error(result)
    assert not any(tmp_path.iterdir())
