"""The seed stack, an in-process peer: rank_bm25 + ChromaDB (same embedding model) fused with RRF in process."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import chromadb
import numpy as np
from chromadb.api.types import Documents, Embeddable, EmbeddingFunction, Embeddings
from chromadb.config import Settings as ChromaSettings
from rank_bm25 import BM25Okapi

from search_platform.domain.models import Document
from search_platform.embeddings.base import Embedder
from search_platform.evaluation.runner import RankedDoc

SEED_NAME = "seed"
DEFAULT_RRF_K = 60
DEFAULT_CANDIDATE_K = 100
_TOKEN = re.compile(r"\w+")
_ADD_BATCH = 512

Chunker = Callable[[Document], list[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class SeedChunk:
    """A chunk the seed stack indexes: the same chunk the platform indexes."""

    chunk_id: str
    doc_id: str
    text: str


def tokenize(text: str) -> list[str]:
    """Lowercase \\w+ tokens, the seed stack's only analysis."""
    return _TOKEN.findall(text.lower())


def chunk_documents(documents: Iterable[Document], chunker: Chunker) -> list[SeedChunk]:
    """Apply the platform's chunker to every document, refusing duplicate chunk ids."""
    chunks: list[SeedChunk] = []
    seen: set[str] = set()
    for document in documents:
        for chunk_id, text in chunker(document):
            if chunk_id in seen:
                raise ValueError(f"duplicate chunk id {chunk_id!r} from document {document.doc_id!r}")
            seen.add(chunk_id)
            chunks.append(SeedChunk(chunk_id=chunk_id, doc_id=document.doc_id, text=text))
    return chunks


class EmbedderFunction(EmbeddingFunction[Documents]):
    """Chroma embedding function over the platform's Embedder, so both stacks embed with the same model."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        """Wrap `embedder`, or the packaged all-MiniLM-L6-v2 (offline) loaded on first use."""
        self._embedder = embedder

    def _get(self) -> Embedder:
        """The wrapped embedder, loading the packaged model the first time."""
        if self._embedder is None:
            from search_platform.embeddings.sentence_transformers import SentenceTransformerEmbedder

            self._embedder = SentenceTransformerEmbedder()
        return self._embedder

    def __call__(self, input: Documents) -> Embeddings:
        """Embed passages into float32 vectors."""
        return [np.asarray(v, dtype=np.float32) for v in self._get().embed_documents(list(input))]

    def embed_query(self, input: Documents) -> Embeddings:
        """Embed queries with the embedder's query path."""
        return [np.asarray(self._get().embed_query(text), dtype=np.float32) for text in input]

    @staticmethod
    def name() -> str:
        """Name under which Chroma records this function."""
        return "search-platform-embedder"

    def get_config(self) -> dict[str, Any]:
        """Serializable configuration: none, the embedder is passed in."""
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> EmbedderFunction:
        """Rebuild from get_config()'s output (with the packaged model)."""
        return EmbedderFunction()


def rrf_fuse(rankings: Sequence[Sequence[str]], *, rrf_k: int = DEFAULT_RRF_K) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion: sum of 1/(rrf_k + rank) per list; ties by best rank, then id."""
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (rrf_k + rank)
            best_rank[item] = min(best_rank.get(item, rank), rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], best_rank[pair[0]], pair[0]))


class SeedStack:
    """rank_bm25 BM25Okapi and an in-memory Chroma collection (cosine), fused with RRF in process."""

    def __init__(
        self,
        chunks: Sequence[SeedChunk],
        *,
        embedder: Embedder | None = None,
        rrf_k: int = DEFAULT_RRF_K,
        candidate_k: int = DEFAULT_CANDIDATE_K,
        name: str = SEED_NAME,
    ) -> None:
        """Index the chunks in both legs; `embedder` defaults to the packaged all-MiniLM-L6-v2."""
        self.name = name
        self.rrf_k = rrf_k
        self.candidate_k = candidate_k
        self._chunks = list(chunks)
        self._doc_of = {chunk.chunk_id: chunk.doc_id for chunk in self._chunks}
        tokens = [tokenize(chunk.text) for chunk in self._chunks]
        self._bm25 = BM25Okapi(tokens) if self._chunks else None
        self._client = chromadb.EphemeralClient(ChromaSettings(anonymized_telemetry=False))
        self._collection = self._client.create_collection(
            name=f"seed-{uuid.uuid4().hex}",
            embedding_function=cast("EmbeddingFunction[Embeddable]", EmbedderFunction(embedder)),
            configuration={"hnsw": {"space": "cosine"}},
        )
        for start in range(0, len(self._chunks), _ADD_BATCH):
            batch = self._chunks[start : start + _ADD_BATCH]
            self._collection.add(ids=[c.chunk_id for c in batch], documents=[c.text for c in batch])

    @classmethod
    def from_documents(cls, documents: Iterable[Document], *, chunker: Chunker, **kwargs: Any) -> SeedStack:
        """Chunk documents with the platform's chunker and index the chunks."""
        return cls(chunk_documents(documents, chunker), **kwargs)

    def bm25_ranking(self, query: str, *, candidate_k: int) -> list[str]:
        """Chunk ids that share a token with the query, by BM25 score (ties by index order)."""
        tokens = tokenize(query)
        terms = set(tokens)
        if self._bm25 is None or not terms:
            return []
        scores = self._bm25.get_scores(tokens)
        matching = [i for i, freqs in enumerate(self._bm25.doc_freqs) if terms & freqs.keys()]
        matching.sort(key=lambda i: (-float(scores[i]), i))
        return [self._chunks[i].chunk_id for i in matching[:candidate_k]]

    def dense_ranking(self, query: str, *, candidate_k: int) -> list[str]:
        """Chunk ids nearest to the query embedding by cosine distance."""
        count = self._collection.count()
        if count == 0 or not query.strip():
            return []
        result = self._collection.query(query_texts=[query], n_results=min(candidate_k, count), include=["distances"])
        return list(result["ids"][0])

    def search(self, query: str, *, top_k: int) -> list[RankedDoc]:
        """Fuse both legs' top candidate_k with RRF and return the top_k chunk hits with their doc ids."""
        rankings = [
            self.bm25_ranking(query, candidate_k=self.candidate_k),
            self.dense_ranking(query, candidate_k=self.candidate_k),
        ]
        fused = rrf_fuse(rankings, rrf_k=self.rrf_k)[:top_k]
        return [RankedDoc(doc_id=self._doc_of[chunk_id], score=score) for chunk_id, score in fused]

    def close(self) -> None:
        """Drop the Chroma collection."""
        self._client.delete_collection(self._collection.name)
