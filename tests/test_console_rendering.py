"""The console's thread page as rendered: an answer's Markdown as safe HTML, and no decision
forms while a decided run goes on (the page shows the run, not the review it left)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from framework.server.console._markdown import markdown_html
from framework.server.console._pages import _TEMPLATES
from framework.server.console._views import STATUSES, ThreadView

PLAN = {"goal": "answer", "tasks": [{"id": "q0", "kind": "search", "description": "look"}]}
REVIEW = {
    "id": "r1",
    "kind": "plan",
    "place": "team research",
    "node": "plan_review",
    "allowed": ["approve", "reject", "edit_plan"],
    "plan": PLAN,
}


def _thread_page(*, running: bool, answer: str = "") -> str:
    view = ThreadView(thread_id="t1", question="q", reviews=[REVIEW], answer=answer)
    return _TEMPLATES.get_template("thread.html").render(
        session=SimpleNamespace(csrf="token", caller=SimpleNamespace(name="ada", tenant="acme")),
        row=SimpleNamespace(thread_id="t1"),
        view=view,
        bars=[],
        running=running,
        state="running" if running else "paused",
        statuses=STATUSES,
        errors={},
        submitted={},
        json=lambda value: json.dumps(value, indent=2),
    )


def test_a_paused_thread_offers_its_decisions() -> None:
    page = _thread_page(running=False)
    assert 'id="approve"' in page and page.count("/decide") == 3
    assert 'id="decided"' not in page


def test_a_decided_thread_that_runs_shows_no_stale_forms() -> None:
    page = _thread_page(running=True)
    assert "/decide" not in page and 'id="approve"' not in page and 'id="edit-plan"' not in page
    assert 'id="decided"' in page and 'id="live"' in page


def test_the_answer_is_rendered_markdown() -> None:
    page = _thread_page(running=False, answer="# Findings\n\n- **one** [1]\n")
    answer = page.split('id="answer">', 1)[1].split("</div>", 1)[0]
    assert "<h1>Findings</h1>" in answer and "<strong>one</strong>" in answer
    assert "# Findings" not in answer


def _html(text: str) -> Any:
    return str(markdown_html(text))


def test_raw_html_in_an_answer_is_text() -> None:
    html = _html('<script>alert(1)</script> <img src=x onerror="alert(1)">')
    assert "<script>" not in html and "&lt;script&gt;" in html and "<img" not in html


def test_only_web_and_mail_links_are_links() -> None:
    html = _html(
        "[a](https://example.org/x) [b](javascript:alert(1)) [c](data:text/html,x) "
        "[d](mailto:ops@example.org) [e](#sources) [f](JaVaScRiPt:alert(1))"
    )
    assert 'href="https://example.org/x"' in html and 'href="mailto:ops@example.org"' in html
    assert 'href="#sources"' in html
    assert "javascript:" not in html.split("[b]")[0] and 'href="javascript' not in html.lower()
    assert 'href="data:' not in html
    assert html.count('rel="noopener noreferrer nofollow"') == 3


def test_images_are_not_loaded() -> None:
    html = _html("![pixel](https://tracker.example/p.gif)")
    assert "<img" not in html and "tracker.example" in html
