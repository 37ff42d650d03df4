"""The supervisor's bounded message window: the last :data:`WINDOW` messages plus a running
summary of the ones that left it.

Every node appends its messages through :func:`add_to_window`, the reducer of the state's
``messages`` key, so the window never grows past :data:`WINDOW` however long the loop runs,
and the summary never past :data:`SUMMARY_GISTS` one-line gists and a count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from langchain_core.messages import AnyMessage

__all__ = [
    "GIST_CHARS",
    "SUMMARY_GISTS",
    "WINDOW",
    "MessageWindow",
    "add_to_window",
    "gist",
    "summary",
]

WINDOW = 10
"""Messages kept whole."""
SUMMARY_GISTS = 5
"""One-line gists of the most recent messages that left the window."""
GIST_CHARS = 120
"""The longest gist."""


class MessageWindow(TypedDict):
    """The last messages, and a summary of the older ones."""

    recent: list[AnyMessage]
    gists: list[str]
    """Gists of the latest messages that left the window, oldest first."""
    folded: int
    """How many messages left the window in all."""


def gist(message: AnyMessage) -> str:
    """One line saying who said what: ``name: text``, cut to :data:`GIST_CHARS`."""
    text = " ".join(message.text.split())
    line = f"{message.name or message.type}: {text}"
    return line if len(line) <= GIST_CHARS else line[: GIST_CHARS - 3] + "..."


def add_to_window(current: MessageWindow | None, update: Sequence[AnyMessage]) -> MessageWindow:
    """Append messages, folding the ones pushed out of the window into the summary."""
    window = current or MessageWindow(recent=[], gists=[], folded=0)
    messages = [*window["recent"], *update]
    pushed_out = messages[:-WINDOW] if len(messages) > WINDOW else []
    gists = [*window["gists"], *(gist(message) for message in pushed_out)]
    return MessageWindow(
        recent=messages[-WINDOW:],
        gists=gists[-SUMMARY_GISTS:],
        folded=window["folded"] + len(pushed_out),
    )


def summary(window: MessageWindow | None) -> str:
    """The running summary of the messages that left the window ("" when none did)."""
    if not window or not window["folded"]:
        return ""
    shown = window["gists"]
    older = window["folded"] - len(shown)
    head = f"{window['folded']} earlier message(s)"
    if older:
        head += f", the {older} oldest not shown"
    return "\n".join([f"{head}:", *(f"- {line}" for line in shown)])
