"""The HTML report of an eval run: its structure, its escaping, regressions first, the numbers
it shows, and the page in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, through Selenium) where no script runs and every chart has a size.

The browser's screenshot goes to ``$CADRE_SCREENSHOTS`` when set (``docs/images`` holds the
one the docs show), else to the test's temporary folder.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions

from framework.evals import CaseResult, EvalRun, Step, Usage, Verdict, render_html
from framework.evals._charts import histogram
from tests.chromium import SCREENSHOTS_VARIABLE, headless_chromium

SCRIPT = "<script>alert(1)</script>"
STEPS = [Step(type="kind", name="planner"), Step(type="tool", name="search")]


def _case(case_id: str, status: str, tags: list[str], **fields: object) -> CaseResult:
    reason = (
        "every expected fact is stated" if status == "passed" else "missing: the escalation path"
    )
    verdicts = fields.pop(
        "verdicts", [Verdict(grader="facts", passed=status == "passed", reason=reason)]
    )
    defaults: dict[str, object] = {
        "question": f"What about {case_id}?",
        "answer": f"The answer to {case_id}.",
        "thread_id": f"eval-{case_id}",
        "trajectory": STEPS,
        "usage": Usage(model_calls=3, input_tokens=900, output_tokens=300, cost=0.01, seconds=2.0),
    }
    return CaseResult.model_validate(
        {"case_id": case_id, "status": status, "tags": tags, "verdicts": verdicts}
        | defaults
        | fields
    )


def _usage(calls: int, tokens_in: int, tokens_out: int, cost: float, seconds: float) -> Usage:
    return Usage(
        model_calls=calls,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost=cost,
        seconds=seconds,
    )


def _run(run_id: str, cases: list[CaseResult]) -> EvalRun:
    return EvalRun(
        run_id=run_id,
        dataset="evals/support.yaml",
        dataset_digest="ab" * 32,
        mode="replay",
        model="openai:gpt-4.1-mini",
        started_at="2026-11-28T09:00:00+00:00",
        finished_at="2026-11-28T09:02:41+00:00",
        cases=cases,
    )


BRANCH_VERDICTS = [
    Verdict(grader="citations", passed=True, reason="every claim cites a file"),
    Verdict(grader="tasks", passed=True, reason="2 tasks done", branch="research/web"),
    Verdict(
        grader="facts", passed=False, reason="missing: the 2019 figure", branch="research/papers"
    ),
]


def _now() -> EvalRun:
    """Six cases in the dataset's order: a fix, an unchanged one with a script in its answer, a
    regression, an error, an untagged one, and one the earlier run lacks."""
    return _run(
        "run-b",
        [
            _case("sla-tiers", "passed", ["support"], usage=_usage(3, 1200, 310, 0.004, 1.2)),
            _case(
                "xss",
                "passed",
                ["security"],
                answer=f"Beware {SCRIPT} & <b>bold</b>",
                usage=_usage(4, 2400, 520, 0.02, 3.4),
            ),
            _case(
                "refund-window",
                "failed",
                ["billing", "policy"],
                answer="Refunds: 14 days.\nContact billing.",
                trajectory=[*STEPS, Step(type="tool", name="fetch", place="research")],
                verdicts=[
                    Verdict(grader="answered", passed=True, reason="an answer was given"),
                    Verdict(grader="facts", passed=False, reason="expected 30 days, said 14"),
                ],
                usage=_usage(5, 1500, 500, 0.05, 7.9),
            ),
            _case(
                "outage",
                "error",
                ["support", "incident"],
                verdicts=[],
                answer="",
                error="replay mismatch: no recorded call for the aggregator",
                usage=_usage(1, 300, 0, 0.001, 0.6),
            ),
            _case(
                "untagged",
                "passed",
                [],
                verdicts=BRANCH_VERDICTS[:2],
                usage=_usage(3, 1100, 280, 0.006, 2.5),
            ),
            _case(
                "brand-new",
                "failed",
                ["research"],
                verdicts=BRANCH_VERDICTS,
                usage=_usage(6, 3100, 740, 0.031, 5.1),
            ),
        ],
    )


def _before() -> EvalRun:
    return _run(
        "run-a",
        [
            _case("sla-tiers", "failed", ["support"]),
            _case("xss", "passed", ["security"], answer=f"Beware {SCRIPT} & <b>bold</b>"),
            _case(
                "refund-window",
                "passed",
                ["billing", "policy"],
                answer="Refunds: 30 days.\nContact billing.",
            ),
            _case("outage", "error", ["support", "incident"], verdicts=[], error="timed out"),
            _case("untagged", "passed", []),
        ],
    )


class _Page(HTMLParser):
    """What a test reads of a page: its tags, headings, texts, and the table's row headers."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.headings: list[tuple[int, str]] = []
        self.texts: list[str] = []
        self.row_heads: list[str] = []
        self._open: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._open.append(tag)
        if re.fullmatch(r"h[1-6]", tag):
            self.headings.append((int(tag[1]), ""))

    def handle_endtag(self, tag: str) -> None:
        while self._open and self._open.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self.headings and any(re.fullmatch(r"h[1-6]", t) for t in self._open):
            level, text = self.headings[-1]
            self.headings[-1] = (level, text + data)
        if "th" in self._open and "tbody" in self._open and "code" in self._open:
            self.row_heads.append(data)

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def test_the_page_is_accessible_and_loads_nothing() -> None:
    text = render_html(_now(), _before())
    page = _Page(text)
    assert "Eval report: evals/support.yaml (run-b)" in text.split("</title>")[0]
    levels = [level for level, _ in page.headings]
    assert levels[0] == 1 and all(b - a <= 1 for a, b in itertools.pairwise(levels))
    assert [name for level, name in page.headings if level == 2] == [
        "Charts",
        "Against run-a",
        "Cases",
    ]
    assert len(page.named("th")) == 8 + 6  # the column headers, a row header per case
    charts = page.named("svg")
    assert len(charts) == 6  # tags, graders, branches, time, cost, tags against
    assert all(svg["role"] == "img" and svg["aria-label"] for svg in charts)
    assert page.named("script") == [] and page.named("link") == [] and page.named("img") == []
    assert "http" not in text and "src=" not in text


def test_a_script_in_an_answer_is_text_never_markup() -> None:
    text = render_html(_now(), _before())
    assert SCRIPT not in text and "<b>bold" not in text
    assert "Beware &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in text
    page = _Page(text)
    assert page.named("script") == [] and page.named("b") == []
    assert any(SCRIPT in data for data in page.texts)


def test_regressions_come_first_then_fixes_then_the_rest() -> None:
    page = _Page(render_html(_now(), _before()))
    assert page.row_heads == [
        "refund-window",
        "sla-tiers",
        "xss",
        "outage",
        "untagged",
        "brand-new",
    ]
    changes = [name for level, name in page.headings if level in (3, 4)]
    assert changes == [
        "Regressions (1)",
        "refund-window ✓ passed → ✗ failed",
        "Fixed (1)",
        "sla-tiers ✗ failed → ✓ passed",
    ]
    unordered = _Page(render_html(_now()))
    assert unordered.row_heads == [
        "sla-tiers",
        "xss",
        "refund-window",
        "outage",
        "untagged",
        "brand-new",
    ]
    assert [name for _, name in unordered.headings] == ["evals/support.yaml", "Charts", "Cases"]


def test_a_change_shows_the_diff_of_its_answer_and_trajectory() -> None:
    text = render_html(_now(), _before())
    assert '<span class="del">-Refunds: 30 days.</span>' in text
    assert '<span class="add">+Refunds: 14 days.</span>' in text
    assert '<span class="add">+tool:fetch</span>' in text
    assert '<span class="hunk">@@' in text and "No change." in text  # sla-tiers' answer


def test_the_header_and_the_charts_show_the_numbers() -> None:
    text = render_html(_now(), _before())
    texts = " ".join(_Page(text).texts)
    for shown in (
        "50.0%",  # 3 of 6
        "3 of 6 cases passed; -10.0 points against 60.0%",
        "run-a",
        "replay",
        "openai:gpt-4.1-mini",
        "2026-11-28T09:02:41+00:00",
        "22",  # model calls
        "11,950",
        "9,600 in · 2,350 out",
        "0.1120",  # in the currency of the dataset's prices: no symbol assumed
        "20.7 s",
        "1/2 · 50%",  # support: sla-tiers passed, outage errored
        "0/1 · 0%",  # billing
        "1/1 · 100%",  # security
        "2/4 · 50%",  # the facts grader
        "5/6 · 83%",  # the verdicts on the whole answer
        "2/2 · 100%",  # the research/web branch
        "replay mismatch: no recorded call for the aggregator",
        "cadre show eval-xss",
    ):
        assert shown in texts, shown
    assert "Tokens per case" not in texts  # costs were recorded


def test_failed_verdicts_come_first_and_statuses_are_words() -> None:
    page = _Page(render_html(_now()))
    texts = " ".join(page.texts)
    assert texts.index("expected 30 days, said 14") < texts.index("an answer was given")
    assert all(word in texts for word in ("✓ passed", "✗ failed", "! error", "✗ fail", "✓ pass"))


def test_tokens_are_charted_when_no_cost_was_recorded() -> None:
    run = _run(
        "run-c",
        [_case(f"c{i}", "passed", ["t"], usage=Usage(input_tokens=i * 400)) for i in range(5)],
    )
    text = render_html(run)
    assert "Tokens per case" in text and "Cost per case" not in text
    offline = _run("run-o", [_case(f"o{i}", "passed", ["t"], usage=Usage()) for i in range(3)])
    texts = " ".join(_Page(render_html(offline)).texts)
    assert "No model call: the cases ran offline." in texts  # no chart of zeros


def test_a_run_with_no_case_yet_or_no_verdict_still_reads() -> None:
    empty = _run("run-0", []).model_copy(update={"finished_at": ""})
    texts = " ".join(_Page(render_html(empty, _before())).texts)
    assert "not finished: cases are left" in texts and "No cases yet." in texts
    assert "0 of 0 cases passed; -60.0 points against 60.0%" in texts
    errors = _run("run-e", [_case("x", "error", ["t"], verdicts=[], error="boom")])
    texts = " ".join(_Page(render_html(errors)).texts)
    assert texts.count("No verdicts to chart.") == 2  # per grader, per branch
    assert "Error:  boom" in texts


def test_the_charts_say_what_they_show_to_a_screen_reader() -> None:
    page = _Page(render_html(_now(), _before()))
    labels = [svg["aria-label"] or "" for svg in page.named("svg")]
    assert "Score per tag. billing: 0/1 · 0%; incident: 0/1 · 0%" in labels[0]
    assert "billing: run-b 0/1 · 0%, run-a 1/1 · 100%" in labels[-1]
    assert "2 cases from 0 s to 2 s" in labels[3]


@pytest.mark.parametrize(
    ("values", "bars"),
    [
        (
            [0.6, 1.2, 2.0, 2.5, 3.4, 5.1, 7.9],
            [(2, "0 s", "2 s"), (3, "2 s", "4 s"), (1, "4 s", "6 s"), (1, "6 s", "8 s")],
        ),
        ([2.0, 2.0], [(2, "1.75 s", "2.25 s")]),
        ([0.0], [(1, "-0.5 s", "0.5 s")]),
    ],
)
def test_a_histogram_has_round_bins_with_counts_written(
    values: list[float], bars: list[tuple[int, str, str]]
) -> None:
    page = _Page(histogram("Time", "seconds", values, lambda v: f"{v:g} s"))
    titles = [text for text in page.texts if " from " in text]
    assert titles == [f"{n} case{'s' * (n != 1)} from {a} to {b}" for n, a, b in bars]
    edges = [text for text in page.texts if re.fullmatch(r"-?[\d.]+ s", text)]
    assert edges == [a for _, a, _ in bars] + [bars[-1][2]]
    written = [text for text in page.texts if text.isdigit()]
    assert all(str(n) in written for n, _, _ in bars)  # on the bars, not only on hover


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with headless_chromium() as driver:
        yield driver


def test_the_page_in_a_browser_runs_no_script_and_draws_every_chart(
    browser: WebDriver, tmp_path: Path
) -> None:
    control = tmp_path / "control.html"
    control.write_text(f"<title>control</title>{SCRIPT}", encoding="utf-8")
    browser.get(control.as_uri())
    alert = expected_conditions.alert_is_present()(browser)
    assert alert, "the check below would not see a script run"
    alert.accept()

    path = tmp_path / "report.html"
    path.write_text(render_html(_now(), _before()), encoding="utf-8")
    browser.get(path.as_uri())
    assert expected_conditions.alert_is_present()(browser) is False
    # an alert would also fail every command below with UnexpectedAlertPresentException
    assert browser.title == "Eval report: evals/support.yaml (run-b)"
    assert browser.execute_script("return document.scripts.length") == 0
    row = browser.find_element(By.XPATH, "//tbody/tr[th/code = 'xss']/following-sibling::tr[1]")
    row.find_element(By.TAG_NAME, "summary").click()
    shown = row.find_element(By.CSS_SELECTOR, "pre.answer")
    assert shown.is_displayed() and SCRIPT in shown.text
    charts = browser.find_elements(By.CSS_SELECTOR, "svg[role=img]")
    assert len(charts) == 6
    for chart in charts:
        box = browser.execute_script("return arguments[0].getBoundingClientRect()", chart)
        assert box["width"] > 200 and box["height"] > 80, box
    height = browser.execute_script("return document.documentElement.scrollHeight")
    chrome = browser.execute_script("return window.outerHeight - window.innerHeight")
    browser.set_window_size(1280, min(int(height) + int(chrome), 6000))
    browser.execute_script("window.scrollTo(0, 0)")
    folder = Path(os.environ.get(SCREENSHOTS_VARIABLE) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(folder / "eval-report.png"))
