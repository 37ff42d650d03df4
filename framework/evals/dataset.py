"""Reading a dataset: a YAML or JSONL file of cases, checked whole before any case runs.

A YAML dataset is a list of cases, or a mapping with ``cases`` and defaults every case takes
unless it says otherwise (``team``, ``corpus``, ``model``, ``review``, ``tags``). A JSONL
dataset is one case per line (its defaults come from the command line). Paths are relative to
the dataset's folder. Every problem is reported as ``FILE:LINE: location: message``: a file that
does not parse, a case naming a missing corpus, team or file, a regular expression that does
not compile, two cases with one id.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from framework.engine.config_file import Where, read_yaml_text
from framework.errors import ConfigError
from framework.evals.cases import CASE_ID, Case
from framework.models.specs import anchored_spec

__all__ = ["DEFAULT_KEYS", "Dataset", "read_dataset"]

DEFAULT_KEYS = ("team", "corpus", "model", "review", "tags")
"""What a dataset (or the command line) may set for every case."""
_DATASET_KEYS = frozenset({"name", "cases", "prices", *DEFAULT_KEYS})


@dataclass(frozen=True, kw_only=True)
class Dataset:
    """A dataset read and checked: its cases, their paths made absolute, teams resolved.

    Attributes:
        path: The file, as given.
        name: Its ``name`` (default: the file's stem).
        digest: The sha256 of its text and of its cases as resolved (see :func:`_digest`).
        cases: The cases, in the file's order.
        lines: The line each case starts on.
        prices: Model name -> price per million input and output tokens (``prices:``, each
            ``[INPUT, OUTPUT]``), for the cost of each case.
    """

    path: Path
    name: str
    digest: str
    cases: tuple[Case, ...]
    lines: Mapping[str, int]
    prices: Mapping[str, tuple[float, float]]

    def at(self, case_id: str) -> str:
        """``FILE:LINE`` of a case, for messages."""
        return f"{self.path}:{self.lines.get(case_id, 1)}"


class _JsonLines(Where):
    """Lines of a JSONL dataset: a case's problems point at its line."""

    def __init__(self, path: Path, lines: Sequence[int]) -> None:
        super().__init__(path, None)
        self.case_lines = lines

    def line(self, location: Sequence[str | int]) -> int:
        index = location[1] if len(location) > 1 and location[0] == "cases" else None
        if isinstance(index, int) and index < len(self.case_lines):
            return self.case_lines[index]
        return 1


def _read_jsonl(text: str, path: Path) -> tuple[dict[str, Any], Where]:
    cases, lines = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            cases.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise ConfigError(f"{path}:{number}: not JSON: {error.msg}") from None
        lines.append(number)
    return {"cases": cases}, _JsonLines(path, lines)


def _read(path: Path) -> tuple[str, dict[str, Any], Where]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read dataset {path}: {error}") from None
    if path.suffix == ".jsonl":
        data, where = _read_jsonl(text, path)
        return text, data, where
    if text.lstrip().startswith("-"):  # a list of cases
        data, where = read_yaml_text("cases:\n" + text, path, "dataset")
        return text, data, _Shifted(where)
    data, where = read_yaml_text(text, path, "dataset")
    return text, data, where


class _Shifted(Where):
    """Lines of a YAML list of cases read under a ``cases:`` line added above it."""

    def __init__(self, inner: Where) -> None:
        super().__init__(inner.path, inner.root)

    def line(self, location: Sequence[str | int]) -> int:
        return max(1, super().line(location) - 1)


def read_dataset(path: Path, defaults: Mapping[str, Any] | None = None) -> Dataset:
    """Read and check the dataset at ``path``; ``defaults`` (from the command line) fill what
    neither the case nor the dataset says.

    Raises:
        ConfigError: The first problems found, each ``FILE:LINE: location: message``.
    """
    text, data, where = _read(path)
    unknown = sorted(set(data) - _DATASET_KEYS)
    if unknown:
        raise ConfigError(
            where.at([unknown[0]], f"unknown key: use {', '.join(sorted(_DATASET_KEYS))}")
        )
    raw_cases = data.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise ConfigError(where.at(["cases"], "a dataset needs a list of cases"))
    shared = {key: data[key] for key in DEFAULT_KEYS if key in data}
    cases, lines = [], {}
    for index, raw in enumerate(raw_cases):
        location: list[str | int] = ["cases", index]
        if not isinstance(raw, dict):
            raise ConfigError(where.at(location, "a case is a mapping (id, question, facts, ...)"))
        case = _case(raw, shared, defaults or {}, where, location)
        if case.id in lines:
            raise ConfigError(where.at([*location, "id"], f"case id {case.id!r} is used twice"))
        lines[case.id] = where.line(location)
        cases.append(_resolved(case, path.parent, where, location))
    name = str(data.get("name") or path.stem)
    if not re.match(CASE_ID, name):
        said = "write letters, digits, '.', '_' and '-' only (it names files of the data home)"
        raise ConfigError(where.at(["name"], f"dataset name {name!r}: {said}"))
    return Dataset(
        path=path,
        name=name,
        digest=_digest(text, cases),
        cases=tuple(cases),
        lines=lines,
        prices=_prices(data.get("prices"), where),
    )


def _digest(text: str, cases: Sequence[Case]) -> str:
    """The sha256 of the dataset's text and of its cases as resolved (absolute corpora and
    teams, defaults from the command line), so two runs of one file over two corpora differ."""
    resolved = json.dumps([case.model_dump(mode="json") for case in cases], sort_keys=True)
    return hashlib.sha256(f"{text}\n{resolved}".encode()).hexdigest()


def _prices(raw: Any, where: Where) -> dict[str, tuple[float, float]]:
    """``model: [input, output]`` per million tokens."""
    if raw is None:
        return {}
    prices = {}
    if isinstance(raw, dict):
        for model, pair in raw.items():
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(p, int | float) and p >= 0 for p in pair)
            ):
                prices[str(model)] = (float(pair[0]), float(pair[1]))
                continue
            raise ConfigError(
                where.at(["prices", model], "a price is [INPUT, OUTPUT] per million tokens")
            )
        return prices
    raise ConfigError(where.at(["prices"], "prices map a model to [INPUT, OUTPUT]"))


def _case(
    raw: Mapping[str, Any],
    shared: Mapping[str, Any],
    defaults: Mapping[str, Any],
    where: Where,
    location: list[str | int],
) -> Case:
    merged = {**{k: v for k, v in defaults.items() if v is not None}, **shared, **raw}
    try:
        return Case.model_validate(merged)
    except ValidationError as error:
        lines = [
            where.at([*location, *[step for step in problem["loc"] if step != ""]], _said(problem))
            for problem in error.errors()
        ]
        raise ConfigError("; ".join(lines)) from None


_CASE_KEYS = ", ".join(Case.model_fields)


def _said(problem: Any) -> str:
    """A validation problem in words that say what to write."""
    if problem["type"] == "extra_forbidden":
        return (
            f"unknown key: a case has {_CASE_KEYS}"
            if len(problem["loc"]) == 1
            else ("unknown key here: see docs/evals.md")
        )
    if problem["type"] == "string_pattern_mismatch":
        return "write letters, digits, '.', '_' and '-' only (it names files of the data home)"
    return str(problem["msg"]).removeprefix("Value error, ")


def _resolved(case: Case, folder: Path, where: Where, location: list[str | int]) -> Case:
    """The case with its corpus folder made absolute and its team resolved, both checked (a
    case with no corpus indexes none: a team of tools, say); a ``scripted:`` model's file is
    found from the dataset's folder."""
    update: dict[str, Any] = {}
    if case.corpus is not None:
        corpus = (folder / case.corpus).expanduser().resolve()
        if not corpus.is_dir():
            raise ConfigError(where.at([*location, "corpus"], f"no corpus folder {corpus}"))
        update["corpus"] = str(corpus)
    if case.team is None:
        raise ConfigError(where.at(location, "the case names no team: give team (or --team)"))
    update["team"] = _team(case.team, folder, where, [*location, "team"])
    if case.model is not None:
        update["model"] = anchored_spec(case.model, folder)
    if case.judge is not None and case.judge.model is not None:
        judge = anchored_spec(case.judge.model, folder)
        update["judge"] = case.judge.model_copy(update={"model": judge})
    return case.model_copy(update=update)


def _team(team: str, folder: Path, where: Where, location: list[str | int]) -> str:
    """A team name checked against the installed teams, or a team file's ``file:`` name."""
    from framework.runs.teams import available_teams, team_file_team  # noqa: PLC0415

    if team.endswith((".yaml", ".yml")):
        path = (folder / team).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(where.at(location, f"no team file {path}"))
        return team_file_team(path)
    if team.startswith("file:") or team in available_teams():
        return team
    raise ConfigError(
        where.at(location, f"unknown team {team!r}: choose one of {', '.join(available_teams())}")
    )
