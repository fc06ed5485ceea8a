"""What one batch adds to the ingest counters."""

from __future__ import annotations

from search_platform.ingestion.ingest_metrics import IngestTotals, batch_totals
from search_platform.ingestion.writer import BulkReport


def test_written_documents_count_with_their_chunks() -> None:
    report = BulkReport(written={"a": 3, "b": 1})
    assert batch_totals(report) == IngestTotals(documents_ok=2, documents_failed=0, chunks=3 + 1)


def test_a_document_with_an_error_counts_as_failed_and_its_chunks_do_not_count() -> None:
    report = BulkReport(written={"a": 3, "b": 2}, errors={"b": "one chunk rejected", "c": "too large"})
    assert batch_totals(report) == IngestTotals(documents_ok=1, documents_failed=2, chunks=3)


def test_an_empty_batch_adds_nothing() -> None:
    assert batch_totals(BulkReport()) == IngestTotals()
