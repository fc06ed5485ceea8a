"""The documentation's settings table is generated from Settings: every setting is in it, with its comment."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from pydantic import BaseModel

from search_platform.config import Settings

HOOK = Path(__file__).parents[2] / "docs" / "hooks" / "settings_table.py"
SPEC = importlib.util.spec_from_file_location("settings_table", HOOK)
assert SPEC and SPEC.loader
hook = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(hook)


def every_variable() -> set[str]:
    names = set()
    for name, info in Settings.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names |= {f"SP_{name.upper()}__{field.upper()}" for field in annotation.model_fields}
        else:
            names.add(f"SP_{name.upper()}")
    return names


def test_the_table_lists_every_setting_once():
    listed = [row[0] for row in hook.rows()]
    assert sorted(listed) == sorted(every_variable())


def test_defaults_choices_and_comments_come_from_the_code():
    table = hook.table()
    assert "| `SP_RETRIEVAL__RRF_K` | int, ≥ 1 | `5` |" in table
    assert "| `SP_ENVIRONMENT` | dev \\| test \\| prod | `dev` |" in table
    assert "HMAC key for stored key hashes" in table  # the comment beside auth.pepper
    assert "| `SP_ELASTICSEARCH__PASSWORD` | secret | *(empty)* |" in table


def test_a_marker_expands_to_one_section():
    page = hook.on_page_markdown("before\n<!-- settings-table: analytics -->\nafter")
    assert "SP_ANALYTICS__QUEUE_SIZE" in page and "SP_RETRIEVAL__TOP_K" not in page
    assert page.startswith("before\n| setting |") and page.rstrip().endswith("after")
