"""The queries one retriever answers worst, and where every retriever put the document judged best for each: what a
reader checks before trusting a mean (a judged page one rank down is grade order; one missing everywhere is a
vocabulary gap no fusion closes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from search_platform.evaluation.datasets import EvalQuery
from search_platform.evaluation.runner import VERDICT_METRIC, EvaluationReport

MISSES_PER_CATEGORY = 10  # the worst queries listed per category
PERFECT = 1.0 - 1e-9  # nDCG@10 at or above this is no miss (float sums of gains)


@dataclass(frozen=True, slots=True)
class Miss:
    """One query the retriever ranked imperfectly: its nDCG@10, its best-judged document and that document's rank
    (1-based, None beyond the kept top_k) in every retriever, and what the retriever put first."""

    query: EvalQuery
    ndcg: float
    judged: str
    grade: int
    also_judged: int
    ranks: Mapping[str, int | None]
    first: str | None


@dataclass(frozen=True, slots=True)
class CategoryMisses:
    """One category's queries, how many of them the retriever missed, and the worst of those."""

    category: str
    queries: int
    missed: int
    worst: tuple[Miss, ...]


def worst_queries(report: EvaluationReport, system: str, *, per_category: int = MISSES_PER_CATEGORY
                  ) -> list[CategoryMisses]:
    """Per category (in dataset order), how many queries the system missed and the `per_category` worst of them,
    lowest nDCG@10 first (ties in dataset order)."""
    results = report.systems[system].results
    by_category: dict[str, list[EvalQuery]] = {}
    for query in report.queries:
        by_category.setdefault(query.category, []).append(query)
    out = []
    for category, queries in by_category.items():
        missed = [query for query in queries if results[query.query_id].scores[VERDICT_METRIC] < PERFECT]
        missed.sort(key=lambda query: results[query.query_id].scores[VERDICT_METRIC])
        out.append(CategoryMisses(category, len(queries), len(missed),
                                  tuple(_miss(report, system, query) for query in missed[:per_category])))
    return out


def _miss(report: EvaluationReport, system: str, query: EvalQuery) -> Miss:
    relevant = [(doc, grade) for doc, grade in query.relevance.items() if grade >= 1]
    judged, grade = max(relevant, key=lambda item: item[1])  # the first of the highest grade
    ranks = {}
    for name, result in report.systems.items():
        doc_ids = result.results[query.query_id].doc_ids
        ranks[name] = doc_ids.index(judged) + 1 if judged in doc_ids else None
    answer = report.systems[system].results[query.query_id]
    return Miss(query=query, ndcg=answer.scores[VERDICT_METRIC], judged=judged, grade=grade,
                also_judged=len(relevant) - 1, ranks=ranks, first=answer.doc_ids[0] if answer.doc_ids else None)
