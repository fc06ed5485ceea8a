"""Runs the legs a mode needs concurrently and fuses them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from search_platform.domain.errors import BackendError, BackendUnavailableError, IndexMissingError
from search_platform.domain.models import (
    Filters,
    FusedHit,
    GroupBy,
    Leg,
    LegScore,
    RankedList,
    SearchMode,
    SearchResult,
)
from search_platform.domain.timings import Stage, StageTiming, StageTimings
from search_platform.retrieval.base import LegRequest, Retriever
from search_platform.retrieval.fusion import (
    DEFAULT_ALPHA,
    DEFAULT_NORMALIZATION,
    FUSERS,
    FuseFn,
    FusionParams,
    Normalization,
)
from search_platform.retrieval.grouping import documents_of, group_by_document
from search_platform.retrieval.page import RecordFetcher, hydrated, shown_id, with_passage, with_snippet
from search_platform.retrieval.passages import PagePassages, Passage, PassageFinder
from search_platform.retrieval.rerank import RerankOutcome, RerankStage
from search_platform.retrieval.routing import Route

MODE_LEGS: dict[SearchMode, tuple[Leg, ...]] = {
    SearchMode.BM25: (Leg.BM25,),
    SearchMode.SEMANTIC: (Leg.DENSE,),
    SearchMode.HYBRID: (Leg.BM25, Leg.DENSE),
}


def legs_for(mode: SearchMode, group_by: GroupBy, lexical_unit: str, *,
             opted_in: Collection[Leg] = ()) -> tuple[Leg, ...]:
    """The legs a search runs: the mode's, plus, when hybrid results are documents, chunk-level BM25 beside
    document-level BM25 if the lexical unit is "both" (a document then wins on its whole text or on one exact
    passage), and the opt-in lists (OPT_IN_LEGS: lead passages, definitions) that weigh more than 0 (`opted_in`)."""
    if mode is not SearchMode.HYBRID or group_by is not GroupBy.DOCUMENT:
        return MODE_LEGS[mode]
    lexical = (Leg.BM25, Leg.BM25_PASSAGE) if lexical_unit == "both" else (Leg.BM25,)
    return (*lexical, Leg.DENSE, *(leg for leg in (Leg.DENSE_LEAD, Leg.DEFINITIONS) if leg in opted_in))


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated search: every k named and resolved.

    top_k is the page size: page `page` is hits (page - 1) * top_k + 1 .. page * top_k of the fused list cut
    to `window` hits (None: page * top_k), after grouping by document when asked.
    """

    query: str
    mode: SearchMode
    index: str
    top_k: int
    candidate_k: int
    rrf_k: int
    filters: Filters = Filters()
    fusion: str = "rrf"
    weights: Mapping[Leg, float] = field(default_factory=dict)
    alpha: float = DEFAULT_ALPHA
    normalization: Normalization = DEFAULT_NORMALIZATION
    route: Route | None = None  # fusion=routed: the query's route, which chose the weights
    tech_boost: float | None = None  # the BM25 leg's `tech` clause boost; None: settings.retrieval.tech_boost
    page: int = 1
    window: int | None = None
    highlight: bool = False
    explain: bool = False
    group_by: GroupBy = GroupBy.CHUNK
    rerank: bool = False
    legs: tuple[Leg, ...] = ()  # the legs to run (legs_for); empty: the mode's own (MODE_LEGS)

    @property
    def legs_to_run(self) -> tuple[Leg, ...]:
        """The legs this search runs."""
        return self.legs or MODE_LEGS[self.mode]

    @property
    def fusion_window(self) -> int:
        """How many fused hits the pages are cut from."""
        return self.window if self.window is not None else self.page * self.top_k

    def fusion_params(self) -> FusionParams:
        """The parameters handed to the fusion method."""
        return FusionParams(rrf_k=self.rrf_k, weights=self.weights, alpha=self.alpha,
                            normalization=self.normalization)


class HybridSearcher:
    """BM25, semantic or hybrid search over the given legs."""

    def __init__(self, retrievers: dict[Leg, Retriever], fusers: dict[str, FuseFn] | None = None, *,
                 rerank_stage: RerankStage | None = None, record_fetcher: RecordFetcher | None = None,
                 passage_finder: PassageFinder | None = None, leg_timeout_s: float = 10.0) -> None:
        self._retrievers = retrievers
        self._passage_finder = passage_finder
        self._leg_timeout_s = leg_timeout_s
        self._record_fetcher = record_fetcher
        self._fusers = fusers if fusers is not None else FUSERS
        self._rerank_stage = rerank_stage

    @property
    def can_rerank(self) -> bool:
        """Whether a reranker is configured, so a request may ask for rerank."""
        return self._rerank_stage is not None

    @property
    def fusion_methods(self) -> tuple[str, ...]:
        """Names a request's fusion may take."""
        return tuple(self._fusers)

    async def search(self, request: SearchRequest) -> SearchResult:
        """Run the mode's legs in parallel, fuse (hybrid) or pass through (single leg), rerank when asked, cut to
        the window, group, page, and add stored fields, passages and snippets to the page's hits.

        The legs return ids, scores and grouping fields only; hits are built for the window alone and the page's
        stored fields and highlights come in one request after paging. Grouped by document, each leg's list is
        collapsed to documents before fusion (a document is fused once, at its best chunk's rank in each leg),
        and the BM25 leg may score whole documents."""
        started = time.perf_counter()
        timings = StageTimings()
        by_document = request.group_by is GroupBy.DOCUMENT
        leg_request = LegRequest(text=request.query, index=request.index, candidate_k=request.candidate_k,
                                 filters=request.filters, tech_boost=request.tech_boost, unit=request.group_by)
        lists, degraded_reason = await self._run_legs(request.legs_to_run, leg_request)
        timings.extend(leg_stages(lists))
        with timings.measure(Stage.FUSION):
            fused = self._fused(request, [documents_of(ranked) for ranked in lists] if by_document else lists)
        reranked, fetched = await self._reranked(request, fused, timings)
        with timings.measure(Stage.PAGE):
            if by_document:
                in_window = list(reranked.hits[: request.fusion_window])
                page = await self._with_passages(request, page_hits(in_window, page=request.page,
                                                                     page_size=request.top_k))
            else:
                in_window = window_hits(reranked.hits, window=request.fusion_window, group_by=request.group_by)
                page = await self._stored(request, page_hits(in_window, page=request.page,
                                                             page_size=request.top_k), fetched=fetched)
        return SearchResult(
            mode=request.mode,
            hits=tuple(page),
            took_ms=(time.perf_counter() - started) * 1000,
            leg_took_ms={ranked.leg: ranked.took_ms for ranked in lists},
            total_in_window=len(in_window),
            reranked=reranked.reranked,
            rerank_reason=reranked.reason,
            degraded_reason=degraded_reason,
            leg_hit_ids={ranked.leg: tuple(hit.chunk_id for hit in ranked.hits) for ranked in lists},
            stages=timings.stages(),
        )

    def _fused(self, request: SearchRequest, lists: Sequence[RankedList]) -> list[FusedHit]:
        """The legs' lists fused (hybrid) or the one leg's hits passed through, up to the fusion limit."""
        limit = self._fusion_limit(request)
        if request.mode is SearchMode.HYBRID:
            return self._fusers[request.fusion](lists, request.fusion_params(), limit=limit)
        return single_leg_hits(lists[0], limit=limit)

    def _fusion_limit(self, request: SearchRequest) -> int:
        """How many fused hits to build: the window, or the rerank stage's top_n when it reaches further."""
        if request.rerank and self._rerank_stage is not None:
            return max(request.fusion_window, self._rerank_stage.top_n)
        return request.fusion_window

    async def _with_passages(self, request: SearchRequest, page: list[FusedHit]) -> list[FusedHit]:
        """Document hits as their passage: the best lexically matching chunk of the document (with highlights),
        else the best chunk a leg found (with a client-side snippet); one request for the page."""
        found = PagePassages()
        if self._passage_finder is not None and page:
            found = await self._passage_finder.passages(
                request.query, index=request.index, doc_ids=list(dict.fromkeys(doc_of(hit) for hit in page)),
                shown_ids=[shown_id(hit) for hit in page], filters=request.filters)
            missing = [shown_id(hit) for hit in page
                       if doc_of(hit) not in found.matched and shown_id(hit) not in found.shown]
            if missing and self._record_fetcher is not None:  # collapsed away: another page hit shares its doc_id
                found.shown.update(await self._record_fetcher.records(request.query, index=request.index,
                                                                      chunk_ids=missing, highlight=False))
        return [with_passage(hit, found.matched.get(doc_of(hit), found.shown.get(shown_id(hit))), request.query)
                for hit in page]

    async def _stored(self, request: SearchRequest, page: list[FusedHit], *,
                      fetched: frozenset[str]) -> list[FusedHit]:
        """The page's hits with their stored fields and, when asked, Elasticsearch highlights where the text
        matches (else a client-side snippet), in one request; none when every hit was fetched already and no
        highlight is asked."""
        found: Mapping[str, Passage] = {}
        needed = request.highlight or any(hit.chunk_id not in fetched for hit in page)
        if self._record_fetcher is not None and page and needed:
            found = await self._record_fetcher.records(request.query, index=request.index,
                                                       chunk_ids=[hit.chunk_id for hit in page],
                                                       highlight=request.highlight)
        stored = [hydrated(hit, found.get(hit.chunk_id)) for hit in page]
        if not request.highlight:
            return stored
        return [with_snippet(replace(hit, highlights=tuple(found[hit.chunk_id].highlights)
                                     if hit.chunk_id in found else ()), request.query) for hit in stored]

    async def _run_legs(self, legs: Sequence[Leg], request: LegRequest) -> tuple[list[RankedList], str | None]:
        """Run legs concurrently, each within the leg timeout; if some fail with a backend error but one answers,
        the answering legs are used and the reason is returned. If every leg fails, the first error is raised."""
        outcomes = await asyncio.gather(*(self._timed(leg, request) for leg in legs), return_exceptions=True)
        lists = [outcome for outcome in outcomes if isinstance(outcome, RankedList)]
        failures = [(leg, outcome) for leg, outcome in zip(legs, outcomes, strict=True)
                    if isinstance(outcome, BaseException)]
        for _, error in failures:
            if not isinstance(error, BackendError) or isinstance(error, IndexMissingError) or not lists:
                raise error
        reason = "; ".join(f"{leg.value} leg failed: {error}" for leg, error in failures)
        return lists, reason or None

    async def _timed(self, leg: Leg, request: LegRequest) -> RankedList:
        try:
            return await asyncio.wait_for(self._retrievers[leg].retrieve(request), timeout=self._leg_timeout_s)
        except TimeoutError as error:
            raise BackendUnavailableError(f"timed out after {self._leg_timeout_s:g} s") from error

    async def _reranked(self, request: SearchRequest, fused: Sequence[FusedHit],
                        timings: StageTimings) -> tuple[RerankOutcome, frozenset[str]]:
        """The fused hits, their top_n rescored by the rerank stage when the request asks for it (their stored
        fields fetched first: the reranker reads the text), and the ids of the hits whose fields were fetched."""
        if not request.rerank:
            return RerankOutcome(hits=list(fused), reranked=False), frozenset()
        if self._rerank_stage is None:
            return RerankOutcome(hits=list(fused), reranked=False, reason="no reranker configured"), frozenset()
        with timings.measure(Stage.RERANK):
            return await self._rescored(request, fused, self._rerank_stage)

    async def _rescored(self, request: SearchRequest, fused: Sequence[FusedHit],
                        stage: RerankStage) -> tuple[RerankOutcome, frozenset[str]]:
        """The rerank stage over the fused top_n, their stored fields fetched first."""
        head = list(fused[: stage.top_n])
        found: Mapping[str, Passage] = {}
        if self._record_fetcher is not None and head:
            found = await self._record_fetcher.records(request.query, index=request.index,
                                                       chunk_ids=[shown_id(hit) for hit in head], highlight=False)
        stored = [hydrated(hit, found.get(shown_id(hit))) for hit in head] + list(fused[len(head):])
        fetched = frozenset(hit.chunk_id for hit in head if shown_id(hit) in found)
        return await stage.apply(request.query, stored), fetched


def leg_stages(lists: Sequence[RankedList]) -> list[StageTiming]:
    """Each answering leg's took_ms as a stage named by its leg, with the query encoding split out of it (once:
    the dense legs of a search share one encoding, so the longest wait for it is the encode stage)."""
    encode_ms = max((ranked.encode_ms for ranked in lists), default=0.0)
    stages: list[StageTiming] = []
    for ranked in lists:
        if ranked.encode_ms and encode_ms:
            stages.append(StageTiming(Stage.ENCODE, encode_ms))
            encode_ms = 0.0
        stages.append(StageTiming(ranked.leg.value, ranked.took_ms - ranked.encode_ms))
    return stages


def window_hits(fused: Sequence[FusedHit], *, window: int, group_by: GroupBy) -> list[FusedHit]:
    """The first `window` fused chunks, collapsed to documents when grouping by document."""
    hits = list(fused[:window])
    return group_by_document(hits) if group_by is GroupBy.DOCUMENT else hits


def page_hits(hits: Sequence[FusedHit], *, page: int, page_size: int) -> list[FusedHit]:
    """Page `page` (from 1) of page_size hits: consecutive pages neither overlap nor skip."""
    start = (page - 1) * page_size
    return list(hits[start : start + page_size])


def doc_of(hit: FusedHit) -> str:
    """The doc_id of a document hit ("" when its stored fields lack one)."""
    return str(hit.source.get("doc_id", ""))


def single_leg_hits(ranked: RankedList, *, limit: int | None = None) -> list[FusedHit]:
    """A single leg's first `limit` hits (all when None) in the fused shape: its raw score is the score."""
    return [
        FusedHit(
            chunk_id=hit.chunk_id,
            rank=hit.rank,
            score=hit.score,
            legs={ranked.leg: LegScore(rank=hit.rank, score=hit.score)},
            source=hit.source,
            contributions={ranked.leg: hit.score},
        )
        for hit in ranked.hits[:limit]
    ]
