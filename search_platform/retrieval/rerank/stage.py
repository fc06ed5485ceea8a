"""The rerank stage: rescore the fused top_n within a latency budget, or leave the fused order as it is."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from search_platform.config import RerankSettings
from search_platform.domain.models import FusedHit
from search_platform.retrieval.rerank.base import Reranker, rerank_hits, rerank_text

logger = logging.getLogger(__name__)
BUDGET_EXCEEDED = "budget exceeded"


@dataclass(frozen=True, slots=True)
class RerankOutcome:
    """The hits after the stage; reason says why they were left in fused order (None when reranked)."""

    hits: list[FusedHit]
    reranked: bool
    reason: str | None = None


class RerankStage:
    """Runs a Reranker over the first top_n fused hits in a worker thread, bounded by budget_ms."""

    def __init__(self, reranker: Reranker, *, top_n: int, budget_ms: float) -> None:
        self._reranker = reranker
        self._top_n = top_n
        self._budget_s = budget_ms / 1000
        # One thread: a queued call whose request timed out is cancelled before it starts, not run for nothing.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rerank")

    @property
    def top_n(self) -> int:
        """How many of the fused hits the stage rescores."""
        return self._top_n

    async def apply(self, query: str, hits: Sequence[FusedHit]) -> RerankOutcome:
        """The hits reordered by the reranker, or unchanged (with the reason) if it overran the budget or failed."""
        texts = [rerank_text(hit) for hit in hits[: self._top_n]]
        call = asyncio.get_running_loop().run_in_executor(self._executor, self._reranker.rerank, query, texts)
        try:
            scores = await asyncio.wait_for(call, timeout=self._budget_s)
        except TimeoutError:
            logger.warning("rerank of %d hits exceeded its %.0f ms budget", len(texts), self._budget_s * 1000)
            return RerankOutcome(hits=list(hits), reranked=False, reason=BUDGET_EXCEEDED)
        except Exception as error:
            logger.exception("reranker failed; keeping the fused order")
            return RerankOutcome(hits=list(hits), reranked=False, reason=f"reranker failed: {type(error).__name__}")
        if len(scores) != len(texts):
            logger.error("reranker returned %d scores for %d texts; keeping the fused order", len(scores), len(texts))
            return RerankOutcome(hits=list(hits), reranked=False, reason="reranker failed: wrong number of scores")
        return RerankOutcome(hits=rerank_hits(hits, scores), reranked=True)

    def close(self) -> None:
        """Stop the worker thread (a running call finishes first)."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def build_rerank_stage(settings: RerankSettings) -> RerankStage | None:
    """The configured stage, loading the cross-encoder once; None when no model path is set."""
    if settings.model_path is None:
        return None
    from search_platform.retrieval.rerank.cross_encoder import CrossEncoderReranker

    reranker = CrossEncoderReranker(settings.model_path, max_length=settings.max_length,
                                    batch_size=settings.batch_size)
    return RerankStage(reranker, top_n=settings.top_n, budget_ms=settings.budget_ms)
