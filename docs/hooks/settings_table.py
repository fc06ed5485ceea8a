"""MkDocs hook: replaces `<!-- settings-table -->` (or `<!-- settings-table: SECTION -->`) in a page with the
table of settings generated from `search_platform.config.Settings`: each SP_* variable, what it accepts, its
default and the meaning written beside the field (its description, else its comment in config.py)."""

from __future__ import annotations

import inspect
import io
import json
import re
import tokenize
from enum import Enum
from functools import cache
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from search_platform.config import Settings

MARKER = re.compile(r"<!-- settings-table(?::\s*(\w+))?\s*-->")
FIELD_LINE = re.compile(r"^\s+(\w+)\s*:")


@cache
def field_comments(model: type[BaseModel]) -> dict[str, str]:
    """Comments written beside each field in the model's source: on its line, else the lines just above."""
    lines = inspect.getsource(model).splitlines()
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0] - 1] = token.string.lstrip("#").strip()
    found: dict[str, str] = {}
    for number, line in enumerate(lines):
        match = FIELD_LINE.match(line)
        if not match or match.group(1) not in model.model_fields:
            continue
        above = []
        previous = number - 1
        while previous >= 0 and lines[previous].strip().startswith("#"):
            above.insert(0, comments.get(previous, ""))
            previous -= 1
        text = comments.get(number) or " ".join(above)
        if text:
            found[match.group(1)] = text
    return found


def _bounds(metadata: list[Any]) -> list[str]:
    return [f"{symbol} {getattr(meta, attr)}" for meta in metadata
            for attr, symbol in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")) if hasattr(meta, attr)]


def _choices(annotation: Any) -> list[str] | None:
    if get_origin(annotation) is Literal:
        return [str(value) for value in get_args(annotation)]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return [str(member.value) for member in annotation]
    return None


def _kind(annotation: Any) -> str:
    """A type as a reader of the table wants it: choices, a plain name, or JSON object/list."""
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extra = get_args(annotation)
        metadata = [m for item in extra for m in (item.metadata if isinstance(item, FieldInfo) else [item])]
        return ", ".join([_kind(inner), *_bounds(metadata)])
    if origin is Union or type(annotation) is UnionType:
        return " or ".join(_kind(arg) for arg in get_args(annotation) if arg is not type(None))
    if (choices := _choices(annotation)) is not None:
        return " \\| ".join(choices)
    if origin in (dict, list) or (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return "JSON list" if origin is list else "JSON object"
    names = {"SecretStr": "secret", "str": "text", "PosixPath": "path", "Path": "path"}
    return names.get(getattr(annotation, "__name__", ""), getattr(annotation, "__name__", str(annotation)))


def accepted(info: FieldInfo) -> str:
    """What a field accepts: its choices, or its type with bounds."""
    return ", ".join([_kind(info.annotation), *_bounds(info.metadata)])


def default(info: FieldInfo) -> str:
    """The default as text (secrets masked, the home directory as ~)."""
    if info.default_factory is not None:
        value: Any = info.default_factory()  # type: ignore[call-arg]
    elif info.default is PydanticUndefined:
        return "*(required)*"
    else:
        value = info.default
    if isinstance(value, SecretStr):
        return "*(secret)*" if value.get_secret_value() else "*(empty)*"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict | list):
        value = json.dumps({k: (v.model_dump(mode="json") if isinstance(v, BaseModel) else v)
                            for k, v in value.items()} if isinstance(value, dict) else value)
    if value is None:
        return "*(none)*"
    if isinstance(value, bool):
        value = json.dumps(value)
    text = str(value).replace(str(Path.home()), "~")
    return f"`{text}`"


def rows(section: str | None = None) -> list[tuple[str, str, str, str]]:
    """(variable, accepts, default, meaning) for every setting, or for one section's."""
    result = []
    for name, info in Settings.model_fields.items():
        if section is not None and name != section:
            continue
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            meanings = field_comments(annotation)
            for field, sub in annotation.model_fields.items():
                result.append((f"SP_{name.upper()}__{field.upper()}", accepted(sub), default(sub),
                               sub.description or meanings.get(field, "")))
        else:
            meaning = info.description or field_comments(Settings).get(name, "")
            kind = "JSON list" if get_origin(annotation) is list else accepted(info)
            result.append((f"SP_{name.upper()}", kind, default(info), meaning))
    return result


def table(section: str | None = None) -> str:
    """The Markdown table, one section (with its description as a heading) after another."""
    out = []
    for name, info in Settings.model_fields.items():
        if section is not None and name != section:
            continue
        annotation = info.annotation
        title = inspect.getdoc(annotation) if isinstance(annotation, type) and issubclass(
            annotation, BaseModel) else info.description
        if section is None:
            out.append(f"### `{name}`\n\n{title or ''}\n")
        out.append("| setting | accepts | default | meaning |\n|---|---|---|---|")
        out += [f"| `{var}` | {kind} | {value} | {_cell(meaning)} |" for var, kind, value, meaning in rows(name)]
        out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs hook: expand every settings-table marker."""
    return MARKER.sub(lambda match: table(match.group(1)), markdown)
