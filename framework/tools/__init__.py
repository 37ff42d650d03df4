"""Tools for workers: a generic tool-calling worker and tools from MCP servers."""
