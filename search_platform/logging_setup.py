"""Process logging: JSON lines (or plain text) carrying the current request id, configured once from settings."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

from search_platform.config import ServiceSettings

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_request_id: ContextVar[str | None] = ContextVar("sp_request_id", default=None)

# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
_RECORD_ATTRIBUTES = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName",
                                                                   "color_message"}  # uvicorn's ANSI copy
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")
CHATTY_CLIENT_LOGGER = "elastic_transport"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


def current_request_id() -> str | None:
    """The id of the request this code runs for, if any."""
    return _request_id.get()


def bind_request_id(request_id: str | None) -> None:
    """Set the request id seen by every log record of the current context (a task or a request)."""
    _request_id.set(request_id)


def accepted_request_id(sent: str | None) -> str:
    """The caller's X-Request-ID when it is 1-128 characters of [A-Za-z0-9._:-], else a fresh uuid4 hex."""
    if sent is not None and _REQUEST_ID_PATTERN.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Stamps each record with the current request id ("-" outside a request), for the text format."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Always keep the record; only add request_id."""
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: timestamp, level, logger, message, request_id, then any extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a single JSON line."""
        entry: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or current_request_id(),
        }
        entry.update(_access_fields(record))
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRIBUTES and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def _access_fields(record: logging.LogRecord) -> dict[str, Any]:
    """uvicorn's access-log arguments as named fields (client, method, path, http_version, status)."""
    if record.name != "uvicorn.access" or not isinstance(record.args, tuple) or len(record.args) != 5:
        return {}
    return dict(zip(_ACCESS_FIELDS, record.args, strict=True))


def build_handler(log_format: Literal["json", "text"], stream: TextIO | None = None) -> logging.Handler:
    """A stream handler writing JSON lines or text, both with the request id."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
        handler.addFilter(RequestIdFilter())
    return handler


def configure_logging(service: ServiceSettings, stream: TextIO | None = None) -> None:
    """Route every logger (uvicorn's and Celery's included) through one handler on the root logger."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(build_handler(service.log_format, stream))
    root.setLevel(service.log_level)
    logging.captureWarnings(True)  # Python warnings become records too, so the output stays one format
    if service.log_format == "json":  # progress bars are not records: they would break the JSON lines
        for variable in ("HF_HUB_DISABLE_PROGRESS_BARS", "TQDM_DISABLE"):
            os.environ.setdefault(variable, "1")
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery"):
        named = logging.getLogger(name)
        named.handlers.clear()
        named.propagate = True
    # the client's line per Elasticsearch request (three per hybrid search) repeats what the access log, the
    # search log and the stage metrics already say, at a cost on the hot path: kept at DEBUG only
    chatty = logging.getLogger(CHATTY_CLIENT_LOGGER)
    chatty.setLevel(logging.DEBUG if root.level <= logging.DEBUG else max(root.level, logging.WARNING))


def configure_worker_logging(service: ServiceSettings) -> None:
    """Configure logging now, and again wherever Celery would set up its own (its main and pool processes)."""
    from celery import signals

    configure_logging(service)
    signals.setup_logging.connect(lambda **_: configure_logging(service), weak=False)
