"""Teams composed from a team file (``cadre run --team-config FILE``): the research team's
roles with the worker kinds, tools, MCP servers and models the file declares."""
