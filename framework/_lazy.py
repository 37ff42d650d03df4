"""A package's exports, listed once, and imported on first use (PEP 562).

A package's ``__init__`` lists what it exports as the imports mypy reads as re-exports, and ends
with ``__getattr__, __dir__ = lazy_exports(__name__)``:

- ``from package.home import *`` exports every name in ``package.home.__all__``;
- ``from package.home import Name as Name`` exports that name.

Inside ``if TYPE_CHECKING:`` they are imported the first time a name is asked for; outside it
they are imported with the package. ``__all__`` (so ``from package import *``) and
``dir(package)`` are served from the same list. The list is read from the sources (the
``__init__``, and each home's literal ``__all__``), not by importing the homes, and only when
the package first lacks an attribute, so importing a package parses nothing. A name listed from
two homes is refused, naming both."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports"]

ModuleGetattr = Callable[[str], Any]
ModuleDir = Callable[[], list[str]]

_ALL = re.compile(r"^__all__(?:: *[\w\[\], ]+)? *= *", re.M)
_CLOSING = {"[": "]", "(": ")"}


def _source(module: str) -> tuple[str, bool]:
    """The source of ``module`` (found, not imported) and whether it is a package."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ImportError(f"no module named {module!r}")
    source = Path(spec.origin).read_text(encoding="utf-8")
    return source, spec.submodule_search_locations is not None


def _all_of(module: str) -> list[str]:
    """``module.__all__``: its literal list, or for a package the exports of its ``__init__``."""
    source, is_package = _source(module)
    found = _ALL.search(source)
    if found is None:
        if is_package:
            return list(_exports(module, source))
        raise ImportError(f"{module} has no __all__ for `import *`: list its public names there")
    import ast  # noqa: PLC0415 - parsing is done on a package's first miss, not at start-up

    start = found.end()
    end = source.find(_CLOSING.get(source[start], "\0"), start)
    try:
        names = ast.literal_eval(source[start : end + 1])
    except (ValueError, SyntaxError) as error:
        raise ImportError(f"{module}.__all__ must be a literal list of names") from error
    return list(names)


def _exports(package: str, source: str) -> dict[str, str]:
    """Each name ``package`` exports -> the module it lives in, from its ``__init__`` source."""
    import ast  # noqa: PLC0415 - parsing is done on a package's first miss, not at start-up

    body = ast.parse(source).body
    checking = [
        node
        for top in body
        if isinstance(top, ast.If) and ast.unparse(top.test) == "TYPE_CHECKING"
        for node in top.body
    ]
    homes: dict[str, str] = {}
    for node in body + checking:
        if not isinstance(node, ast.ImportFrom) or node.level or node.module is None:
            continue
        home = node.module
        star = node.names[0].name == "*"
        names = [alias.name for alias in node.names if alias.asname == alias.name]
        for name in _all_of(home) if star else names:
            if homes.setdefault(name, home) != home:
                raise ImportError(
                    f"{package} exports {name!r} from both {homes[name]} and {home}: "
                    "import it from one of them"
                )
    return homes


def lazy_exports(package: str) -> tuple[ModuleGetattr, ModuleDir]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``, from its ``__init__``'s list."""
    table: dict[str, str] = {}

    def exports() -> dict[str, str]:
        if not table:
            table.update(_exports(package, _source(package)[0]))
        return table

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        if name == "__all__":
            value: Any = sorted(exports())
        elif name in exports():
            value = getattr(importlib.import_module(table[name]), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807 - the module hook's own name
        return sorted({*vars(sys.modules[package]), *exports()})

    return __getattr__, __dir__
