"""The ``cadre`` command: the app is in :mod:`framework.cli.app`; the modules here are its
commands and the helpers commands of other packages share (``framework.cli.common``).

Nothing is imported here, so a package whose command imports those helpers can be loaded by
the app (through the ``cadre.commands`` entry points) without a cycle.

It may import everything in the framework; nothing in the framework imports it.
"""
