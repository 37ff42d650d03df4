"""An answer's Markdown as safe HTML for the console.

CommonMark without raw HTML (a ``<script>`` in an answer is shown as text), links only to
``http``, ``https`` and ``mailto`` addresses or within the page (any other link, such as
``javascript:``, stays text), each opened without the console as its opener or referrer; no
images (a remote image would tell its host who reads the answer, and when).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markupsafe import Markup

__all__ = ["markdown_html"]

_SCHEMES = frozenset({"http", "https", "mailto"})


def _link_allowed(url: str) -> bool:
    """An address a reviewer may follow: a web or mail address, or a fragment of the page."""
    address = url.strip()
    if address.startswith("#"):
        return True
    try:
        scheme = urlsplit(address).scheme.lower()
    except ValueError:
        return False
    return scheme in _SCHEMES


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    parser.validateLink = _link_allowed  # type: ignore[method-assign]

    def link_open(renderer: Any, tokens: Any, index: int, options: Any, env: Any) -> str:
        tokens[index].attrSet("rel", "noopener noreferrer nofollow")
        return str(renderer.renderToken(tokens, index, options, env))

    parser.add_render_rule("link_open", link_open)
    return parser


_PARSER = _parser()


def markdown_html(text: str | None) -> Markup:
    """``text`` (Markdown) as HTML safe to put in a page."""
    return Markup(_PARSER.render(text or ""))  # raw HTML is off; links checked
