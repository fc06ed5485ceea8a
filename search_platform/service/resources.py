"""Long-lived objects of one API process, built at start-up from settings and closed at shutdown."""

from __future__ import annotations

from dataclasses import dataclass

from celery import Celery
from elasticsearch import AsyncElasticsearch
from redis import Redis

from search_platform.analytics.experiments import validate_arms
from search_platform.analytics.recorder import SearchAnalytics
from search_platform.auth.keys import KeyStore
from search_platform.auth.rate_limit import RateLimiter
from search_platform.backends.elasticsearch.client import build_async_client
from search_platform.config import Settings
from search_platform.domain.models import Leg
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.factory import build_embedder
from search_platform.ingestion.jobs import JobStore
from search_platform.retrieval.bm25 import BM25Retriever
from search_platform.retrieval.dense import DenseRetriever
from search_platform.retrieval.hybrid import HybridSearcher
from search_platform.retrieval.page import ElasticsearchRecordFetcher
from search_platform.retrieval.passages import ElasticsearchPassageFinder
from search_platform.retrieval.query_cache import RedisQueryCache, model_fingerprint
from search_platform.retrieval.query_encoder import QueryEncoder
from search_platform.retrieval.rerank import build_rerank_stage
from search_platform.service.search_service import SearchParams, SearchService


@dataclass(frozen=True, slots=True)
class Resources:
    """Clients, model and services shared by every request."""

    settings: Settings
    es: AsyncElasticsearch
    redis: Redis[bytes]
    jobs: JobStore
    celery: Celery
    search: SearchService
    keys: KeyStore
    rate_limiter: RateLimiter
    analytics: SearchAnalytics

    async def close(self) -> None:
        """Flush the search log, then release connections."""
        await self.analytics.stop()
        await self.es.close()
        self.redis.close()


def build_search_service(settings: Settings, es: AsyncElasticsearch, embedder: Embedder) -> SearchService:
    """The search service over both legs (also used in-process by the evaluation harness)."""
    encoder = QueryEncoder(embedder, cache_size=settings.embedding.query_cache_size,
                           shared=build_query_cache(settings, embedder))
    searcher = HybridSearcher(
        {
            Leg.BM25: BM25Retriever(es, settings.retrieval),
            Leg.BM25_PASSAGE: BM25Retriever(es, settings.retrieval, leg=Leg.BM25_PASSAGE),
            Leg.DENSE: DenseRetriever(es, encoder, settings.retrieval),
            Leg.DENSE_LEAD: DenseRetriever(es, encoder, settings.retrieval, leg=Leg.DENSE_LEAD),
            Leg.DEFINITIONS: BM25Retriever(es, settings.retrieval, leg=Leg.DEFINITIONS),
        },
        rerank_stage=build_rerank_stage(settings.rerank),
        record_fetcher=ElasticsearchRecordFetcher(es),
        passage_finder=ElasticsearchPassageFinder(es),
        leg_timeout_s=settings.retrieval.leg_timeout_s,
    )
    return SearchService(searcher, settings.retrieval, default_index=settings.elasticsearch.index_alias,
                         rerank_by_default=settings.rerank.enabled)


def build_query_cache(settings: Settings, embedder: Embedder) -> RedisQueryCache | None:
    """The shared Redis query-embedding cache if embedding.query_cache_redis is on."""
    if not settings.embedding.query_cache_redis:
        return None
    timeout = settings.embedding.query_cache_timeout_s
    redis = Redis.from_url(settings.redis.url, socket_timeout=timeout, socket_connect_timeout=timeout)
    return RedisQueryCache(redis, fingerprint=model_fingerprint(embedder, backend=settings.embedding.backend),
                           ttl_s=settings.embedding.query_cache_ttl_s)


def build_analytics(settings: Settings, es: AsyncElasticsearch, search: SearchService) -> SearchAnalytics:
    """Experiment arms checked by the same rules as a request (ValueError names a bad arm), and the log writer."""
    validate_arms(settings.experiments,
                  lambda overrides: search.resolve(SearchParams(query="experiment check", **overrides)))
    return SearchAnalytics.build(es, settings.analytics, settings.experiments, settings.elasticsearch)


def build_resources(settings: Settings, *, embedder: Embedder | None = None) -> Resources:
    """Everything the API needs; the embedding model is loaded here, once."""
    from search_platform.ingestion.queue import create_celery

    es = build_async_client(settings.elasticsearch)
    redis = Redis.from_url(settings.redis.url, socket_timeout=5, socket_connect_timeout=5)
    search = build_search_service(settings, es, embedder or build_embedder(settings.embedding))
    return Resources(
        settings=settings,
        es=es,
        redis=redis,
        jobs=JobStore.from_settings(redis, settings),
        celery=create_celery(settings),
        search=search,
        keys=KeyStore.from_settings(redis, settings.auth),
        rate_limiter=RateLimiter(redis, prefix=settings.auth.rate_limit_prefix),
        analytics=build_analytics(settings, es, search),
    )
