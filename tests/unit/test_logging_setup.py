"""JSON log lines with the request id, the text format, and the request-id rules."""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import Iterator

import pytest

from search_platform.config import ServiceSettings
from search_platform.logging_setup import (
    JsonFormatter,
    accepted_request_id,
    bind_request_id,
    configure_logging,
    current_request_id,
)


@pytest.fixture
def restore_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for variable in ("HF_HUB_DISABLE_PROGRESS_BARS", "TQDM_DISABLE"):
        monkeypatch.delenv(variable, raising=False)  # restored afterwards, whatever configure_logging sets
    root, chatty = logging.getLogger(), logging.getLogger("elastic_transport")
    handlers, level, chatty_level = list(root.handlers), root.level, chatty.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    chatty.setLevel(chatty_level)
    logging.captureWarnings(False)
    bind_request_id(None)


def _configured(log_format: str, level: str = "INFO") -> io.StringIO:
    stream = io.StringIO()
    configure_logging(ServiceSettings(log_format=log_format, log_level=level), stream)  # type: ignore[arg-type]
    return stream


def test_each_record_is_one_json_line_with_the_bound_request_id(restore_logging: None) -> None:
    stream = _configured("json")
    bind_request_id("req-42")
    logging.getLogger("search_platform.test").info("searched %s", "kafka", extra={"hits": 3, "mode": "bm25"})
    bind_request_id(None)
    logging.getLogger("search_platform.test").warning("outside")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "searched kafka"
    assert first["level"] == "INFO"
    assert first["logger"] == "search_platform.test"
    assert first["request_id"] == "req-42"
    assert (first["hits"], first["mode"]) == (3, "bm25")
    assert first["timestamp"].endswith("+00:00")
    assert second["request_id"] is None


def test_json_mode_turns_progress_bars_off(restore_logging: None) -> None:
    _configured("json")
    assert os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == os.environ["TQDM_DISABLE"] == "1"


def test_the_level_setting_filters_records(restore_logging: None) -> None:
    stream = _configured("json", level="WARNING")
    logging.getLogger("x").info("hidden")
    logging.getLogger("x").error("shown")
    assert [json.loads(line)["message"] for line in stream.getvalue().splitlines()] == ["shown"]


@pytest.mark.parametrize(("level", "shown"), [("INFO", ["warned"]), ("DEBUG", ["sent", "warned"])])
def test_elasticsearch_request_lines_only_at_debug(restore_logging: None, level: str, shown: list[str]) -> None:
    stream = _configured("json", level=level)
    logging.getLogger("elastic_transport.transport").info("sent")
    logging.getLogger("elastic_transport.transport").warning("warned")
    assert [json.loads(line)["message"] for line in stream.getvalue().splitlines()] == shown


def test_exceptions_are_kept_in_one_line(restore_logging: None) -> None:
    stream = _configured("json")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("x").exception("failed")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    assert "ValueError: boom" in json.loads(lines[0])["exception"]


def test_uvicorn_access_lines_get_named_fields() -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5000", "POST", "/v1/search", "1.1", 200), None)
    entry = json.loads(JsonFormatter().format(record))
    assert entry["message"] == '127.0.0.1:5000 - "POST /v1/search HTTP/1.1" 200'
    assert (entry["method"], entry["path"], entry["status"]) == ("POST", "/v1/search", 200)


def test_uvicorn_loggers_reach_the_root_handler(restore_logging: None) -> None:
    logging.getLogger("uvicorn.access").propagate = False
    stream = _configured("json")
    logging.getLogger("uvicorn.error").info("Started server process")
    assert json.loads(stream.getvalue())["logger"] == "uvicorn.error"
    assert logging.getLogger("uvicorn.access").propagate


def test_text_format_shows_the_request_id_or_a_dash(restore_logging: None) -> None:
    stream = _configured("text")
    bind_request_id("abc")
    logging.getLogger("x").info("with")
    bind_request_id(None)
    logging.getLogger("x").info("without")
    with_id, without = stream.getvalue().splitlines()
    assert with_id.endswith("INFO x [abc] with")
    assert without.endswith("INFO x [-] without")


@pytest.mark.parametrize("sent", ["abc", "A-b_c.d:e", "x" * 128, "0123456789abcdef0123456789abcdef"])
def test_sane_request_ids_are_kept(sent: str) -> None:
    assert accepted_request_id(sent) == sent


@pytest.mark.parametrize("sent", [None, "", "x" * 129, "a b", "a/b", "é", "a\nb", "<script>"])
def test_other_request_ids_are_replaced_by_a_uuid4_hex(sent: str | None) -> None:
    made = accepted_request_id(sent)
    assert made != sent
    assert len(made) == 32
    assert int(made, 16) >= 0


def test_no_request_id_is_bound_by_default() -> None:
    assert current_request_id() is None
