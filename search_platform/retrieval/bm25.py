"""The lexical legs: BM25 over text, title and technical terms, of chunks or whole documents; and the definitions
leg, the same whole-document BM25 over the documents that define one of the query's names."""

from __future__ import annotations

import time

from elasticsearch import AsyncElasticsearch

from search_platform.backends.elasticsearch.errors import async_translated_errors
from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.backends.elasticsearch.mappings import RecordKind
from search_platform.backends.elasticsearch.queries import bm25_body, defines_filter, grouping_fields
from search_platform.config import RetrievalSettings
from search_platform.domain.models import GroupBy, Leg, RankedList
from search_platform.retrieval.base import LegRequest, ranked_list_from_response
from search_platform.retrieval.routing import is_sentence
from search_platform.text.definitions import query_names
from search_platform.text.tokenizer import identifier_phrases, query_options, technical_query


class BM25Retriever:
    """Runs bm25_body against one index."""

    def __init__(self, client: AsyncElasticsearch, settings: RetrievalSettings, *, leg: Leg = Leg.BM25) -> None:
        self._client = client
        self._settings = settings
        self.leg = leg  # Leg.BM25_PASSAGE always scores chunks, Leg.DEFINITIONS documents

    async def retrieve(self, request: LegRequest) -> RankedList:
        """Search and rank: chunks, or whole documents when the results are documents, this is the BM25 leg and
        the lexical unit is the document (or both); the definitions leg ranks the documents that define one of the
        query's names (none, without a request, when the query writes no name)."""
        filters = filter_clauses(request.filters)
        if self.leg is Leg.DEFINITIONS:
            names = query_names(request.text)
            if not names:
                return RankedList(leg=self.leg, hits=())
            filters.append(defines_filter(names))
        documents = self.leg is Leg.DEFINITIONS or (request.unit is GroupBy.DOCUMENT and self.leg is Leg.BM25
                                                     and self._settings.lexical_unit in ("document", "both"))
        body = bm25_body(
            request.text,
            fields=self._fields(request.text, documents=documents),
            kind=RecordKind.DOCUMENT if documents else RecordKind.CHUNK,
            tech_query="" if documents else technical_query(request.text, plain_words=self._is_lookup(request.text)),
            candidate_k=request.candidate_k,
            filters=filters,
            tech_boost=self._settings.tech_boost if request.tech_boost is None else request.tech_boost,
            doc_values=grouping_fields(request.unit),
            phrases=identifier_phrases(request.text, word_compounds=not is_sentence(request.text)),
            phrase_field=self._settings.document_phrase_field if documents else self._settings.chunk_phrase_field,
            phrase_boost=self._settings.phrase_boost,
            options=query_options(request.text),
            option_field=self._settings.document_option_field if documents else self._settings.chunk_option_field,
            option_boost=self._settings.option_boost,
        )
        started = time.perf_counter()
        async with async_translated_errors():
            response = await self._client.search(index=request.index, body=body)
        return ranked_list_from_response(self.leg, response, started=started)

    def _fields(self, text: str, *, documents: bool) -> dict[str, float]:
        """The BM25 fields of the record kind, and for a lookup its unstemmed field too (lookup_exact_boost)."""
        settings = self._settings
        fields = dict(settings.document_fields if documents else settings.chunk_fields)
        if settings.lookup_exact_boost > 0 and self._is_lookup(text):
            exact = settings.document_phrase_field if documents else settings.chunk_phrase_field
            fields[exact] = fields.get(exact, 0.0) + settings.lookup_exact_boost
        return fields

    def _is_lookup(self, text: str) -> bool:
        """A short query is a lookup: its plain words may be parts of identifiers (tech_lookup_max_words)."""
        return len(text.split()) <= self._settings.tech_lookup_max_words
