"""The HTML report of an eval run: one self-contained page a reviewer opens in a browser.

The page has no script, font or request of its own: its style is inline and its charts are
inline SVG drawn by :mod:`framework.evals._charts`. Answers, reasons, ids and tags are
untrusted text and are escaped wherever they appear. Given a run to compare with, the page
puts that run's regressions first, then the cases it fixed, each with a diff of its answer and
of its trajectory.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from html import escape

from framework.evals._charts import Bar, Row, histogram, rate_chart
from framework.evals._style import STYLE
from framework.evals.results import CaseResult, EvalRun, tag_scores

__all__ = ["render_html"]

_MARKS = {"passed": "✓ passed", "failed": "✗ failed", "error": "! error"}

_HEADS = ("Case", "Status", "Score", "Tags", "Verdicts", "Seconds", "Tokens", "Thread")

Groups = list[tuple[str, list[CaseResult]]]
"""Cases in named groups, in the order the page shows them."""


def render_html(run: EvalRun, against: EvalRun | None = None) -> str:
    """The report of ``run`` as one HTML page, compared with ``against`` when given.

    Args:
        run: The run reported.
        against: A run of the same dataset to compare with: its score and tags are set beside
            this run's, and the cases that regressed or were fixed come first, with diffs.

    Returns:
        The page's text: a full HTML document with nothing to load.
    """
    earlier = {case.case_id: case for case in against.cases} if against else {}
    groups = _groups(run, earlier) if against else [("Cases", list(run.cases))]
    title = f"Eval report: {run.dataset} ({run.run_id})"
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body><main>",
        _header(run, against),
        _charts(run, against),
        _comparison(groups, earlier, (against.run_id, run.run_id)) if against else "",
        _table([case for group in groups for case in group[1]], earlier, compared=bool(against)),
        "</main></body></html>",
    ]
    return "\n".join(part for part in parts if part)


def _percent(share: float) -> str:
    return f"{share * 100:.1f}%"


def _cost(cost: float) -> str:
    """A cost in the currency of the dataset's ``prices`` (which cadre does not know)."""
    return f"{cost:,.4f}" if cost < 1 else f"{cost:,.2f}"


def _fact(name: str, value: str) -> str:
    return f"<div><dt>{escape(name)}</dt><dd>{value}</dd></div>"


def _card(name: str, value: str, note: str) -> str:
    return (
        f'<div class="card"><div class="card-name">{escape(name)}</div>'
        f'<div class="card-value">{escape(value)}</div>'
        f'<div class="card-note">{escape(note)}</div></div>'
    )


def _header(run: EvalRun, against: EvalRun | None) -> str:
    usage = run.usage
    tokens = usage.input_tokens + usage.output_tokens
    facts = [
        _fact("Run", f"<code>{escape(run.run_id)}</code>"),
        _fact("Mode", escape(run.mode)),
        _fact("Model", escape(run.model or "each case's own")),
        _fact("Started", escape(run.started_at)),
        _fact("Finished", escape(run.finished_at or "not finished: cases are left")),
        _fact("Dataset digest", f"<code>{escape(run.dataset_digest[:12])}</code>"),
    ]
    score_note = f"{run.passed} of {len(run.cases)} cases passed"
    if against:
        points = (run.score - against.score) * 100
        theirs = f"{against.passed}/{len(against.cases)} passed ({_percent(against.score)})"
        facts.append(_fact("Compared with", f"<code>{escape(against.run_id)}</code> · {theirs}"))
        score_note += f"; {points:+.1f} points against {_percent(against.score)}"
    cards = [
        _card("Score", _percent(run.score), score_note),
        _card("Model calls", f"{usage.model_calls:,}", f"{len(run.cases)} cases"),
        _card("Tokens", f"{tokens:,}", f"{usage.input_tokens:,} in · {usage.output_tokens:,} out"),
        _card("Cost", _cost(usage.cost), "summed over the cases"),
        _card("Time", f"{usage.seconds:,.1f} s", "summed over the cases"),
    ]
    return (
        f'<header><p class="kicker">cadre eval report</p><h1>{escape(run.dataset)}</h1>'
        f'<dl class="facts">{"".join(facts)}</dl>'
        f'<div class="cards">{"".join(cards)}</div></header>'
    )


def _rate_bar(passed: int, total: int) -> Bar:
    if not total:
        return Bar(rate=0.0, text="no case")
    return Bar(rate=passed / total, text=f"{passed}/{total} · {passed / total:.0%}")


def _verdict_rates(run: EvalRun, key: Callable[[str, str], str]) -> list[Row]:
    """Pass rate of the verdicts grouped by ``key(grader, branch)``, keys sorted."""
    counts: dict[str, tuple[int, int]] = {}
    for case in run.cases:
        for verdict in case.verdicts:
            name = key(verdict.grader, verdict.branch)
            passed, total = counts.get(name, (0, 0))
            counts[name] = (passed + verdict.passed, total + 1)
    return [Row(label=name, bars=(_rate_bar(*counts[name]),)) for name in sorted(counts)]


def _figure(title: str, chart: str) -> str:
    return f"<figure><figcaption>{escape(title)}</figcaption>{chart}</figure>"


def _rates_figure(title: str, side: str, rows: Sequence[Row], series: Sequence[str]) -> str:
    counted = "cases" if side == "tag" else "verdicts"
    if not rows:
        return _figure(title, f'<p class="empty">No {counted} to chart.</p>')
    return _figure(title, rate_chart(title, f"{counted} passed", side, rows, series))


def _spread_figures(run: EvalRun) -> list[str]:
    if not run.cases:
        return [_figure("Time and cost per case", '<p class="empty">No cases yet.</p>')]
    seconds = [case.usage.seconds for case in run.cases]
    figures = [
        _figure("Time per case", histogram("Time per case", "seconds per case", seconds, _seconds))
    ]
    if any(case.usage.cost for case in run.cases):
        costs = [case.usage.cost for case in run.cases]
        chart = histogram(
            "Cost per case", "cost per case (the prices' currency)", costs, _edge_cost
        )
        return [*figures, _figure("Cost per case", chart)]
    tokens = [float(case.usage.input_tokens + case.usage.output_tokens) for case in run.cases]
    if not any(tokens):
        note = '<p class="empty">No model call: the cases ran offline.</p>'
        return [*figures, _figure("Tokens per case", note)]
    chart = histogram("Tokens per case", "tokens per case (no cost recorded)", tokens, _edge_tokens)
    return [*figures, _figure("Tokens per case", chart)]


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _edge_cost(value: float) -> str:
    return f"{value:g}"


def _edge_tokens(value: float) -> str:
    return f"{value:,.0f}"


def _tag_rows(run: EvalRun, against: EvalRun | None) -> list[Row]:
    mine = tag_scores(run.cases)
    if against is None:
        return [Row(label=tag, bars=(_rate_bar(*score),)) for tag, score in mine.items()]
    theirs = tag_scores(against.cases)
    return [
        Row(
            label=tag, bars=(_rate_bar(*mine.get(tag, (0, 0))), _rate_bar(*theirs.get(tag, (0, 0))))
        )
        for tag in sorted({*mine, *theirs})
    ]


def _charts(run: EvalRun, against: EvalRun | None) -> str:
    figures = [
        _rates_figure("Score per tag", "tag", _tag_rows(run, None), [run.run_id]),
        _rates_figure(
            "Pass rate per grader", "grader", _verdict_rates(run, lambda g, _: g), [run.run_id]
        ),
        _rates_figure(
            "Pass rate per branch",
            "branch",
            _verdict_rates(run, lambda _, b: b or "answer"),
            [run.run_id],
        ),
        *_spread_figures(run),
    ]
    if against:
        title = f"Score per tag: {run.run_id} against {against.run_id}"
        series = [run.run_id, against.run_id]
        figures.append(_rates_figure(title, "tag", _tag_rows(run, against), series))
    return f'<section><h2>Charts</h2><div class="charts">{"".join(figures)}</div></section>'


def _groups(run: EvalRun, earlier: dict[str, CaseResult]) -> Groups:
    """The cases as regressions (passed in ``earlier``, not now), fixed ones, and the rest."""
    groups: Groups = [("Regressions", []), ("Fixed", []), ("Unchanged or new", [])]
    for case in run.cases:
        before, now = earlier.get(case.case_id), case.status == "passed"
        if before is None or (before.status == "passed") == now:
            groups[2][1].append(case)
        else:
            groups[1 if now else 0][1].append(case)
    return groups


def _diff(before: Iterable[str], now: Iterable[str], names: tuple[str, str]) -> str:
    lines = list(difflib.unified_diff(list(before), list(now), *names, lineterm=""))
    if not lines:
        return '<p class="empty">No change.</p>'
    kinds = {"+": "add", "-": "del", "@": "hunk"}
    shown = [f'<span class="{kinds.get(line[:1], "same")}">{escape(line)}</span>' for line in lines]
    return f'<pre class="diff">{"".join(shown)}</pre>'


def _change(case: CaseResult, before: CaseResult, names: tuple[str, str], opened: bool) -> str:
    answer = _diff(before.answer.splitlines(), case.answer.splitlines(), names)
    steps = _diff(
        [step.label for step in before.trajectory],
        [step.label for step in case.trajectory],
        names,
    )
    return (
        f'<article class="change"><h4><code>{escape(case.case_id)}</code> '
        f"{_status(before.status)} → {_status(case.status)}</h4>{_verdicts(case)}"
        f"<details{' open' * opened}><summary>Answer diff</summary>{answer}</details>"
        f"<details><summary>Trajectory diff</summary>{steps}</details></article>"
    )


def _comparison(groups: Groups, earlier: dict[str, CaseResult], names: tuple[str, str]) -> str:
    """Regressions then fixes, each with its diffs; ``names``: the earlier run's id, this one's."""
    parts = [f"<section><h2>Against <code>{escape(names[0])}</code></h2>"]
    for name, cases in groups[:2]:
        parts.append(f"<h3>{name} ({len(cases)})</h3>")
        opened = name == "Regressions"
        parts.extend(_change(case, earlier[case.case_id], names, opened) for case in cases)
        if not cases:
            parts.append('<p class="empty">None.</p>')
    rest = len(groups[2][1])
    parts.append(f'<p class="note">{rest} other case{"s" * (rest != 1)} kept their status.</p>')
    return "".join(parts) + "</section>"


def _status(status: str) -> str:
    return f'<span class="status status-{status}">{_MARKS[status]}</span>'


def _verdicts(case: CaseResult) -> str:
    if case.status == "error":
        return f'<p class="error"><strong>Error:</strong> {escape(case.error or "unknown")}</p>'
    items = [
        f'<li class="{"ok" if verdict.passed else "bad"}">'
        f'<span class="mark">{"✓ pass" if verdict.passed else "✗ fail"}</span> '
        f"<strong>{escape(verdict.grader)}</strong>"
        + (f' <span class="branch">{escape(verdict.branch)}</span>' if verdict.branch else "")
        + f": {escape(verdict.reason)}</li>"
        for verdict in sorted(case.verdicts, key=lambda verdict: verdict.passed)
    ]
    return (
        f'<ul class="verdicts">{"".join(items)}</ul>'
        if items
        else '<p class="empty">No grader.</p>'
    )


def _answer(case: CaseResult) -> str:
    """The case's question and answer, folded, in a row of its own under the case's."""
    shown = f"Answer ({len(case.answer):,} chars)" if case.answer else "Question (no answer)"
    answer = f'<pre class="answer">{escape(case.answer)}</pre>' if case.answer else ""
    return (
        f'<tr class="answer-row"><td colspan="{len(_HEADS)}"><details><summary>{shown}</summary>'
        f'<p class="question"><strong>Question:</strong> {escape(case.question)}</p>{answer}'
        "</details></td></tr>"
    )


def _row(case: CaseResult, before: CaseResult | None) -> str:
    was = (
        f'<div class="was">was {escape(before.status)}</div>'
        if before and before.status != case.status
        else ""
    )
    tokens = case.usage.input_tokens + case.usage.output_tokens
    tags = "".join(f'<span class="tag">{escape(tag)}</span>' for tag in case.tags)
    thread = (
        f'<code class="cmd">cadre show {escape(case.thread_id)}</code>' if case.thread_id else "–"
    )
    return (
        f'<tr class="case"><th scope="row"><code>{escape(case.case_id)}</code></th>'
        f'<td>{_status(case.status)}{was}</td><td class="num">{case.score:.0%}</td>'
        f"<td>{tags}</td><td>{_verdicts(case)}</td>"
        f'<td class="num">{case.usage.seconds:,.1f}</td><td class="num">{tokens:,}</td>'
        f'<td class="thread">{thread}</td></tr>{_answer(case)}'
    )


def _table(cases: Sequence[CaseResult], earlier: dict[str, CaseResult], *, compared: bool) -> str:
    head = "".join(f'<th scope="col">{name}</th>' for name in _HEADS)
    rows = "".join(_row(case, earlier.get(case.case_id)) for case in cases)
    order = " (regressions first, then fixed cases)" if compared else ""
    return (
        f'<section><h2>Cases</h2><p class="note">Every case{order}, its answer under it. Open a '
        f"case's thread with "
        f'<code>cadre show THREAD</code>.</p><div class="table-wrap"><table><thead><tr>{head}'
        f"</tr></thead><tbody>{rows}</tbody></table></div></section>"
    )
