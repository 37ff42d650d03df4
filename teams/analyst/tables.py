"""Table lookup over the CSV files of a corpus folder: the ``table`` kind of the analyst team.

Each CSV file (first row: the column names) becomes rows a question can be matched against. A
row matches by the words of the question found in its cells (which row: "Ada", "Lyon"), and the
columns whose names the question mentions say what to answer ("born", "population"). Every
answer is evidence citing ``file.csv:LINE``, so citations and the compliance check work as for
corpus passages. Files are read as the corpus is: regular files only, under the size limit,
text only; a file that cannot be read is skipped.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.errors import CorpusError, NotTextError
from framework.memory import read_text
from teams.language.words import keywords

__all__ = ["TableIndex", "TableRow", "TableWorker"]

MAX_TABLE_ROWS = 50_000
"""Rows read from all the CSV files of a corpus together; the rest are left out."""


def _terms(text: str) -> set[str]:
    """Content words, singular where a plural ``s`` ends them (``cities`` stays as is)."""
    found: set[str] = set()
    for word in keywords(text):
        found.add(word)
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            found.add(word[:-1])
    return found


@dataclass(frozen=True, slots=True)
class TableRow:
    """One data row of a CSV file, with its file's column names."""

    source: str
    """``folder/file.csv:LINE`` (named as corpus passages are), the line the row starts on."""
    columns: tuple[str, ...]
    cells: tuple[str, ...]

    def render(self, wanted: Iterable[int] = ()) -> str:
        """``name: Ada; born: 1815``: the first column and the wanted ones (all when none)."""
        picked = sorted({0, *wanted}) if wanted else range(len(self.cells))
        return "; ".join(
            f"{self.columns[i]}: {self.cells[i]}" for i in picked if i < len(self.cells)
        )


@dataclass(frozen=True, slots=True)
class TableMatch:
    """A row matched to a question, the columns it asks about, and how well."""

    row: TableRow
    wanted: tuple[int, ...]
    score: float


class TableIndex:
    """The rows of the CSV files under a folder, matched to questions by their words."""

    def __init__(self, rows: Iterable[TableRow]) -> None:
        self.rows = list(rows)
        self._row_terms = [_terms(" ".join(row.cells)) for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def from_folder(cls, folder: Path | None) -> TableIndex:
        """Every ``*.csv`` under ``folder`` (none when ``folder`` is None or holds none)."""
        rows: list[TableRow] = []
        if folder is None or not folder.is_dir():
            return cls(rows)
        for path in sorted(folder.rglob("*.csv")):
            if len(rows) >= MAX_TABLE_ROWS:
                break
            try:
                text = read_text(path)
            except (NotTextError, CorpusError):
                continue  # skipped as the corpus skips it
            name = f"{folder.resolve().name}/{path.relative_to(folder).as_posix()}"
            rows.extend(_rows(name, text, MAX_TABLE_ROWS - len(rows)))
        return cls(rows)

    def lookup(self, question: str, k: int = 3) -> list[TableMatch]:
        """The rows best matching ``question``, best first; a row must share a word of its
        cells with the question. The score is the share of the question's words the row's
        cells and the asked columns cover."""
        asked = _terms(question)
        if not asked:
            return []
        matches: list[TableMatch] = []
        for row, row_terms in zip(self.rows, self._row_terms, strict=True):
            in_cells = asked & row_terms
            if not in_cells:
                continue
            wanted = tuple(
                i for i, column in enumerate(row.columns) if _terms(column) & (asked - in_cells)
            )
            covered = in_cells | {t for i in wanted for t in _terms(row.columns[i]) & asked}
            matches.append(TableMatch(row, wanted, len(covered) / len(asked)))
        matches.sort(key=lambda m: (-m.score, m.row.source))
        return matches[:k]


def _rows(name: str, text: str, room: int) -> list[TableRow]:
    """The data rows of one CSV text (the first row names the columns)."""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], ",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    try:
        header = tuple(cell.strip() for cell in next(reader))
    except (StopIteration, csv.Error):
        return []
    rows: list[TableRow] = []
    try:
        for cells in reader:
            if len(rows) >= room:
                break
            stripped = tuple(cell.strip() for cell in cells)
            if any(stripped):
                rows.append(TableRow(f"{name}:{reader.line_num}", header, stripped))
    except csv.Error:
        pass  # a malformed line ends the file's rows; what was read stays
    return rows


class TableWorker:
    """Answers a task from the best matching table rows, each cited as evidence.

    Args:
        index: The table rows.
        k: Rows kept per task.
        min_score: Rows covering less of the task's words are not used.
    """

    def __init__(self, index: TableIndex, k: int = 3, min_score: float = 0.3) -> None:
        self.index = index
        self.k = k
        self.min_score = min_score

    def may_pause(self, task: Task) -> bool:
        """Never: a lookup in local tables asks nobody (its tasks may run in batches)."""
        return False

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """The rows matching the task as evidence; confidence is the best row's score."""
        query = str(task.inputs.get("query") or task.description)
        matches = [m for m in self.index.lookup(query, self.k) if m.score >= self.min_score]
        evidence = [
            Evidence(source=m.row.source, text=m.row.render(m.wanted), score=m.score)
            for m in matches
        ]
        return WorkerResult(
            task_id=task.id,
            status="ok",
            output=evidence[0].text if evidence else "",
            evidence=evidence,
            confidence=min(1.0, evidence[0].score) if evidence else 0.0,
            attempt=task.attempt,
        )

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """:meth:`run` on a thread (matching is CPU work)."""
        return await asyncio.to_thread(self.run, task, question, context)
