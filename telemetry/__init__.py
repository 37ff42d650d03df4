"""OpenTelemetry spans and metrics for cadre runs.

It plugs into the framework as a run observer (``cadre.observers``) and may import the
framework; the framework never imports it."""

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from telemetry.callbacks import *
    from telemetry.cli import *
    from telemetry.erase import *
    from telemetry.export import *
    from telemetry.instrument import *
    from telemetry.metrics import *
    from telemetry.middleware import *
    from telemetry.run_spans import *
    from telemetry.runs import *
    from telemetry.serde import *
    from telemetry.settings import *
    from telemetry.setup import *
    from telemetry.spans import *
    from telemetry.view import *

__getattr__, __dir__ = lazy_exports(__name__)
