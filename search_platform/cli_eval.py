"""The `eval` command's work: ingest the dataset's corpus through Celery, run every retriever, write reports."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import Settings
from search_platform.domain.models import Document, SearchMode
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.datasets import EvalDataset, load_dataset
from search_platform.evaluation.platform import EvaluationSetupError, PlatformSystem, ensure_evaluation_index
from search_platform.evaluation.report import format_table, write_reports
from search_platform.evaluation.runner import EvaluationReport, RetrievalSystem, run_evaluation
from search_platform.ingestion.pipeline import chunk_document
from search_platform.service.resources import build_search_service
from search_platform.service.search_service import SearchService
from workers.celery_app import create_celery


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """What the user asked for on the command line."""

    dataset: Path
    corpus: Path | None
    modes: tuple[SearchMode, ...]
    peer: str | None
    json_out: Path | None
    report_dir: Path | None
    top_k: int = 10


def parse_modes(text: str) -> tuple[SearchMode, ...]:
    """'bm25,semantic,hybrid' -> modes, with a clear error for an unknown one."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in {m.value for m in SearchMode}]
    if unknown or not names:
        raise ValueError(f"unknown mode(s) {unknown or text!r}: use bm25, semantic, hybrid")
    return tuple(SearchMode(name) for name in names)


def _seed_system(corpus: Sequence[Document], settings: Settings, embedder: Embedder) -> RetrievalSystem:
    from search_platform.evaluation.seed_stack import SeedStack

    def chunker(document: Document) -> list[tuple[str, str]]:
        chunks = chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens)
        return [(chunk.chunk_id, chunk.text) for chunk in chunks]

    return SeedStack.from_documents(list(corpus), chunker=chunker, embedder=embedder)


def load_eval_dataset(path: Path, corpus: Path | None) -> tuple[EvalDataset, Sequence[Document]]:
    """The dataset and its corpus (a golden-set file needs --corpus DIR)."""
    dataset = load_dataset(path, corpus_dir=corpus)
    if not dataset.corpus:
        raise EvaluationSetupError("the dataset has no corpus: pass --corpus DIR with a golden-set file")
    return dataset, dataset.corpus


@dataclass(frozen=True, slots=True)
class PlatformSession:
    """The platform ready to be searched in-process: the service, the evaluation index, an event loop."""

    service: SearchService
    index: str
    loop: asyncio.AbstractEventLoop
    embedder: Embedder


@contextmanager
def platform_session(settings: Settings, corpus: Sequence[Document], *, query_cache: bool) -> Iterator[PlatformSession]:
    """Ingest the corpus (once per corpus) and yield the search service over it; query_cache=False makes every
    search pay for its own query encoding."""
    index = ensure_evaluation_index(settings, corpus, create_celery(settings))
    embedder = build_embedder(settings.embedding)
    loop = asyncio.new_event_loop()
    es = build_async_client(settings.elasticsearch)
    if not query_cache:
        settings = settings.model_copy(
            update={"embedding": settings.embedding.model_copy(update={"query_cache_size": 0})})
    try:
        yield PlatformSession(build_search_service(settings, es, embedder), index, loop, embedder)
    finally:
        loop.run_until_complete(es.close())
        loop.close()


def run_eval(settings: Settings, options: EvalOptions) -> tuple[EvaluationReport, list[Path]]:
    """Ingest (once per corpus), evaluate the requested modes and peer, write JSON/Markdown/PNG reports."""
    dataset, corpus = load_eval_dataset(options.dataset, options.corpus)
    # uncached: every mode pays for its own query encoding, so latencies compare fairly
    with platform_session(settings, corpus, query_cache=False) as session:
        systems: list[RetrievalSystem] = [PlatformSystem(mode, session.service, session.index, session.loop)
                                          for mode in options.modes]
        if options.peer == "seed":
            systems.append(_seed_system(corpus, settings, session.embedder))
        report = run_evaluation(dataset, systems, top_k=options.top_k, fetch_k=100)
    return report, write_reports(report, json_out=options.json_out, report_dir=options.report_dir)


def print_report(report: EvaluationReport) -> None:
    """The terminal table."""
    print(format_table(report))
