"""The platform ready to be searched in-process for evaluation and tuning: its corpus ingested (once per corpus)
through Celery, the same SearchService the API uses over it, and an event loop to drive it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import Settings
from search_platform.domain.models import Document
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.cache import passage_fingerprint
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.datasets import DEFAULT_SPLIT, EvalDataset, load_dataset
from search_platform.evaluation.platform import EvaluationSetupError, ensure_evaluation_index
from search_platform.ingestion.pipeline import chunk_document
from search_platform.ingestion.queue import create_celery
from search_platform.service.resources import build_search_service
from search_platform.service.search_service import SearchService


def load_eval_dataset(path: Path, corpus: Path | None, split: str = DEFAULT_SPLIT
                      ) -> tuple[EvalDataset, Sequence[Document]]:
    """The dataset and its corpus (a golden-set file needs --corpus DIR); a BEIR directory's judgments of `split`."""
    dataset = load_dataset(path, corpus_dir=corpus, split=split)
    if not dataset.corpus:
        raise EvaluationSetupError("the dataset has no corpus: pass --corpus DIR with a golden-set file")
    return dataset, dataset.corpus


@dataclass(slots=True)
class PlatformSession:
    """The platform ready to be searched in-process: the service, the evaluation index, an event loop."""

    service: SearchService
    index: str
    loop: asyncio.AbstractEventLoop
    embedder: Embedder
    settings: Settings | None = None
    es: AsyncElasticsearch | None = None
    index_reused: bool = False  # an earlier run's index for the same corpus, model, chunking and mapping
    not_indexed: Mapping[str, str] = field(default_factory=dict)  # corpus documents ingestion refused: reason
    _variants: dict[str, SearchService] = field(default_factory=dict)

    def service_with(self, retrieval: Mapping[str, Any]) -> SearchService:
        """A search service over the same index whose retrieval settings differ by `retrieval` (query-time
        settings only: fields, boosts, lexical unit, fusion defaults); built once per distinct override."""
        if not retrieval:
            return self.service
        if self.settings is None or self.es is None:
            raise ValueError("this session cannot build variants: it has no settings or client")
        key = json.dumps(retrieval, sort_keys=True, default=str)
        if key not in self._variants:
            current = self.settings.retrieval
            changed = type(current).model_validate({**current.model_dump(), **retrieval})
            variant = self.settings.model_copy(update={"retrieval": changed})
            self._variants[key] = build_search_service(variant, self.es, self.embedder)
        return self._variants[key]


@contextmanager
def platform_session(settings: Settings, corpus: Sequence[Document], *, query_cache: bool) -> Iterator[PlatformSession]:
    """Ingest the corpus (once per corpus) and yield the search service over it; query_cache=False makes every
    search pay for its own query encoding."""
    embedder = build_embedder(settings.embedding)

    def count_chunks(document: Document) -> int:
        return len(chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens))

    index = ensure_evaluation_index(settings, corpus, create_celery(settings), encoder=passage_fingerprint(embedder),
                                    count_chunks=count_chunks)
    loop = asyncio.new_event_loop()
    es = build_async_client(settings.elasticsearch)
    if not query_cache:
        settings = settings.model_copy(
            update={"embedding": settings.embedding.model_copy(update={"query_cache_size": 0})})
    try:
        yield PlatformSession(build_search_service(settings, es, embedder), index.alias, loop, embedder, settings, es,
                              index_reused=index.reused, not_indexed=index.not_indexed)
    finally:
        loop.run_until_complete(es.close())
        loop.close()
