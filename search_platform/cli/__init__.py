"""search-platform: the command line, one module per command group; `main` is the console-script entry point."""

from __future__ import annotations

from search_platform.cli.main import app, main

__all__ = ["app", "main"]
