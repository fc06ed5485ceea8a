"""Optional second stage: a cross-encoder rescoring the fused top_n."""

from search_platform.retrieval.rerank.base import Reranker, rerank_hits
from search_platform.retrieval.rerank.stage import BUDGET_EXCEEDED, RerankOutcome, RerankStage, build_rerank_stage

__all__ = ["BUDGET_EXCEEDED", "RerankOutcome", "RerankStage", "Reranker", "build_rerank_stage", "rerank_hits"]
