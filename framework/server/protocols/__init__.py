"""The agent protocols ``cadre serve`` speaks besides LangGraph's API (see docs/protocols.md),
one sub-package of the same shape each: ``a2a/``, ``mcp/`` and ``agui/``, whose ``__init__``
exposes the protocol's routes and whose private modules do its work. They share one base,
:mod:`._base`: :class:`Authenticated`, the wrapper every protocol's app sits behind, and asking,
deciding reviews, following events and reading outcomes through the same gate and run path
(:mod:`framework.server.run_path`). A new protocol is one more sub-package of that shape."""

from framework._lazy import lazy_exports
from framework.server.protocols._base import *

__getattr__, __dir__ = lazy_exports(__name__)
