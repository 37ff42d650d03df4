"""Options of plain types read without pydantic, so that a command starts without importing it.

Typer (0.2x) reads every option's value through a pydantic ``TypeAdapter``, built the first
time the option is read (``--help`` too, even when not given); importing pydantic for that is
about a third of ``cadre threads``. For an option of type ``str``, ``pathlib.Path`` or ``bool``
(or one of them or None), :func:`read_plainly` gives it a reader that does what the adapter
would with a string (kept as given; a path made with its type, then checked by typer's own
path checks) or a flag's bool (kept). A value of any other kind (a flag's ``--opt=yes``, bytes)
and every other option go through typer's adapter as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["read_plainly"]

try:  # typer's reader of values (0.2x); without it typer reads values through click alone
    from typer._coercion import RuntimeParam, build_runtime_param, resolve_type_descriptor
    from typer._param_types import coerce_cli_path, lenient_issubclass
except ImportError:  # pragma: no cover - older typer: nothing imports pydantic to avoid
    RuntimeParam = None  # type: ignore[assignment,misc]


def read_plainly(command: Any) -> None:
    """Give each plain option of ``command`` (its ``--help`` included, made here with click's
    default names, as cadre sets no others) and of its subcommands a pydantic-free reader."""
    if RuntimeParam is None:  # pragma: no cover - older typer
        return
    help_option = command.get_help_option(command.context_class(command))
    for param in [*command.params, *filter(None, [help_option])]:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", True) is not None:
            continue
        annotation = descriptor.annotation
        single = param.nargs == 1 and not param.multiple
        plain = annotation in (str, bool) or lenient_issubclass(annotation, Path)
        if single and plain and descriptor.file_annotation is None:
            info = descriptor.parameter_info
            if info.parser is None:
                param._runtime_param = _PlainValue(parameter_info=info, annotation=annotation)
    for subcommand in getattr(command, "commands", {}).values():
        read_plainly(subcommand)


if RuntimeParam is not None:

    class _PlainValue(RuntimeParam):
        """A ``str`` or ``Path`` option's value read as typer's adapter reads a string."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.annotation is bool and isinstance(value, bool):
                return value
            if self.annotation is bool or not isinstance(value, str):  # typer's way
                descriptor = resolve_type_descriptor(self.annotation, self.parameter_info)
                return build_runtime_param(descriptor)._coerce_value(value, param, ctx)
            if self.annotation is str:
                return value
            info = self.parameter_info
            path_type: Any = info.path_type or self.annotation
            path = path_type(value) if lenient_issubclass(path_type, Path) else value  # as pydantic
            return coerce_cli_path(path, info, path_type=path_type, param=param, ctx=ctx)
