"""``cadre extract``: counts on stdout, progress on stderr, an encrypted graph in the data home,
the thread recorded, and one-line refusals that write nothing; ``cadre run --team extraction``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import DataHome
from framework.knowledge import KnowledgeGraph
from framework.memory import MiniLMEmbedder
from framework.runs.stores import home_cipher, home_store, open_checkpointer
from framework.runs.threads import thread_spec
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus

runner = CliRunner()

NOTES = {
    "ledger.md": "# Ledger\n\nThe Quillfeather ledger is a journal.\n\n"
    "The Quillfeather ledger uses the vault. Clerks can call the vault.\n",
    "guide/vault.txt": "The vault holds every entry.\nIt has no owner.\n",
}


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    for name, text in NOTES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_extract_prints_counts_and_keeps_an_encrypted_graph(
    notes: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = tmp_path / "home"
    done = runner.invoke(
        app,
        ["extract", str(notes), str(notes / "ledger.md"), "--home", str(home), "--thread", "x1"],
    )
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines() == [
        "documents: 2",
        "entities: 5",
        "relations: 4",
        "dropped: 0",
        "flagged: 0",
    ]
    assert "2 documents; thread x1, team extraction" in done.stderr
    assert f"] {notes.as_posix()}/ledger.md: 3 relations, 0 dropped" in done.stderr
    assert "[1/2] " in done.stderr and "[2/2] " in done.stderr  # in the order they finish
    data_home = DataHome(root=home)
    with home_store(data_home, home_cipher(data_home)) as store:
        graph = KnowledgeGraph(store)
        ledger = graph.entity("Quillfeather ledger")
        assert ledger is not None and ledger.type == "journal"
        (holds,) = graph.relations_of("vault", direction="out")
        assert (holds.predicate, holds.object) == ("holds", "entry")
        ((document, line, run),) = [(p.document, p.line, p.run) for p in holds.provenance]
        assert (document, line, run) == (f"{notes.as_posix()}/guide/vault.txt", 1, "x1")
    with open_checkpointer(data_home) as saver:
        info = thread_spec(saver, "x1")
    assert (info.team, info.corpus, info.prompt_versions) == ("extraction", None, ())
    on_disk = b"".join(path.read_bytes() for path in home.glob("memory.sqlite*"))
    assert b"quillfeather" not in on_disk.lower()


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["{tmp}/missing"], "does not exist"),
        (["{tmp}/empty"], "holds no .markdown, .md, .rst, .txt files"),
        (["{tmp}/empty/data.csv"], "is not a .markdown, .md, .rst, .txt file"),
        (["{notes}", "{tmp}/binary"], "blob.md is not a text document (binary: it holds NUL"),
        (["{notes}", "--max-parallel", "0"], "max_parallel must be >= 1"),
        (["{notes}", "--memory-scope", "/"], "--memory-scope is empty"),
        (["{notes}", "--model", "gpt4"], "bad model spec 'gpt4'"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    args: list[str], reason: str, notes: Path, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "data.csv").write_text("a,b\n", encoding="utf-8")
    (tmp_path / "binary").mkdir()
    (tmp_path / "binary" / "blob.md").write_bytes(bytes(range(256)) * 4)
    home = tmp_path / "home"
    args = [a.format(tmp=tmp_path, notes=notes) for a in args]
    line = one_line_error(runner.invoke(app, ["extract", *args, "--home", str(home)]))
    assert reason in line
    assert not home.exists()


def test_run_team_extraction_extracts_the_corpus_it_indexed(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    (corpus / "photo.md").write_bytes(bytes(range(256)) * 40)  # not indexed, so not extracted
    home = tmp_path / "home"
    done = runner.invoke(
        app,
        ["run", "map", "--team", "extraction", "--corpus", str(corpus), "--home", str(home)],
    )
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith("Extracted 3 documents:")
    assert "skipped docs/photo.md: binary: it holds NUL bytes" in done.stderr
    data_home = DataHome(root=home)
    with home_store(data_home, home_cipher(data_home)) as store:
        (approves,) = KnowledgeGraph(store).relations_of("human reviewer")
    assert approves.provenance[0].document == "docs/review.md"


def test_extracting_a_changed_document_replaces_what_it_stated(
    notes: Path, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    home = ["--home", str(tmp_path / "home"), "--no-trace"]
    assert runner.invoke(app, ["extract", str(notes), *home]).exit_code == 0
    (notes / "ledger.md").write_text("# Ledger\n\nThe Quillfeather ledger is a journal.\n")
    again = runner.invoke(app, ["extract", str(notes / "ledger.md"), *home])
    assert again.exit_code == 0, again.stderr
    data_home = DataHome(root=tmp_path / "home")
    with home_store(data_home, home_cipher(data_home)) as store:
        graph = KnowledgeGraph(store)
        objects = {r.object for r in graph.relations_of("Quillfeather ledger")}
        assert objects == {"journal"}  # "uses the vault" is no longer stated
        assert graph.entity("vault") is not None  # guide/vault.txt still reads it
