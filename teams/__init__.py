"""Concrete teams built only from framework parts.

Teams may import the framework (through its packages' exports); the framework never imports a
team: it finds them through the ``cadre.teams`` entry points. :mod:`teams.language` is the
offline readers' shared language."""
