"""Reading a reviewer's edit from a file: a plan, tasks or an answer, in JSON or YAML.

Every edit is validated through the records' models here, before any thread is opened, so a
bad file is refused with its validation errors in one line and nothing is touched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from framework.engine.records import Plan, Task
from framework.errors import ReviewError
from framework.review import check_plan, validation_message
from framework.review.limits import ReviewLimits

__all__ = ["read_answer", "read_plan", "read_tasks"]

_STRUCTURED = {".json", ".yaml", ".yml"}
_TASKS = TypeAdapter(list[Task])


def _text(path: Path, what: str) -> str:
    limit = ReviewLimits.from_environment().max_file_bytes
    try:
        if path.stat().st_size > limit:
            raise ReviewError(
                f"the {what} file {path} has more than {limit:,} bytes: no review edit is that "
                "long (see the limits in docs/review.md)"
            )
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise ReviewError(f"cannot read the {what} file {path}: {reason}") from error


def _load(path: Path, what: str) -> Any:
    """The data in a JSON (``.json``) or YAML (any other name) file."""
    text = _text(path, what)
    try:
        return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise ReviewError(f"the {what} file {path} is not valid {kind}: {error}") from error


def read_plan(path: Path) -> Plan:
    """A plan edit: a mapping with ``goal`` and ``tasks`` (see
    :class:`~framework.engine.records.Plan`),
    checked as the review API checks an edited plan (unique task ids, some work to do).

    Raises:
        ReviewError: The file cannot be read, parsed or validated (with the errors).
    """
    return check_plan(_load(path, "plan"), f"the plan in {path}")


def read_tasks(path: Path) -> list[Task]:
    """A tasks edit: a list of tasks, or a mapping with a ``tasks`` list.

    Raises:
        ReviewError: The file cannot be read, parsed or validated, or holds no task.
    """
    data = _load(path, "tasks")
    if isinstance(data, dict) and set(data) == {"tasks"}:
        data = data["tasks"]
    try:
        tasks = _TASKS.validate_python(data)
    except ValidationError as error:
        raise ReviewError(f"invalid tasks in {path}: {validation_message(error)}") from error
    if not tasks:
        raise ReviewError(f"no tasks in {path}: list the tasks to change")
    return tasks


def read_answer(path: Path) -> str:
    """An answer edit: the text of the file, or, for JSON and YAML, a string or a mapping
    with an ``answer`` string.

    Raises:
        ReviewError: The file cannot be read or parsed, or the answer is empty.
    """
    if path.suffix in _STRUCTURED:
        data = _load(path, "answer")
        answer = data.get("answer") if isinstance(data, dict) else data
        if not isinstance(answer, str):
            raise ReviewError(
                f"invalid answer in {path}: give a string, or a mapping with an 'answer' string"
            )
    else:
        answer = _text(path, "answer")
    if not answer.strip():
        raise ReviewError(f"the answer in {path} is empty: write the answer to ship")
    return answer
