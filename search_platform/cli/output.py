"""How commands print results: a table readable at 80 columns (cells cut, never wrapped into slivers), or JSON,
or JSON lines for scripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.console import Console, RenderableType
from rich.table import Table


class OutputFormat(StrEnum):
    """--format: table for people, json (one document) or jsonl (one object a line) for scripts."""

    TABLE = "table"
    JSON = "json"
    JSONL = "jsonl"


FormatOption = Annotated[OutputFormat, typer.Option(
    "--format", "-f", case_sensitive=False, help="table (for people), json or jsonl (for scripts).")]


def console() -> Console:
    """A console on stdout; piped, it is as wide as the terminal would be (COLUMNS, else 80) and plain."""
    return Console(soft_wrap=False, highlight=False)


def table(title: str | None, columns: Sequence[tuple[str, int | None]],
          rows: Iterable[Sequence[RenderableType]]) -> Table:
    """A table whose cells stay on one line: each column (name, max width or None for the flexible one) is cut
    with an ellipsis, so a row takes one line at any width."""
    result = Table(title=title, title_justify="left", expand=True, pad_edge=False, box=None, show_edge=False)
    for name, width in columns:
        result.add_column(name, no_wrap=True, overflow="ellipsis", width=width, ratio=None if width else 1)
    for row in rows:
        result.add_row(*row)
    return result


def print_json(value: Any) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def print_jsonl(values: Iterable[Mapping[str, Any]]) -> None:
    """One JSON object a line on stdout."""
    for value in values:
        sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
