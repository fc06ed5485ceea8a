"""`search-platform eval`: ingest the dataset's corpus through Celery, run every retriever, write reports."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import typer

from search_platform.cli.common import fail, settings_or_exit
from search_platform.config import EmbeddingSettings, Settings
from search_platform.domain.models import Document, SearchMode
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.cache import with_passage_cache
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.datasets import DEFAULT_SPLIT
from search_platform.evaluation.platform import PlatformSystem
from search_platform.evaluation.report import format_table, write_reports
from search_platform.evaluation.runner import EvaluationReport, RetrievalSystem, Stage, run_evaluation
from search_platform.evaluation.session import load_eval_dataset, platform_session
from search_platform.ingestion.pipeline import chunk_document

SEED_MODEL = "all-minilm-l6-v2"  # the seed peer is a fixed reference stack: MiniLM chunks, whatever our default


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
    split: str = DEFAULT_SPLIT


def parse_modes(text: str) -> tuple[SearchMode, ...]:
    """'bm25,semantic,hybrid' -> modes, with a clear error for an unknown one."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in {m.value for m in SearchMode}]
    if unknown or not names:
        raise ValueError(f"unknown mode(s) {unknown or text!r}: use bm25, semantic, hybrid")
    return tuple(SearchMode(name) for name in names)


def seed_embedding(embedding: EmbeddingSettings) -> EmbeddingSettings:
    """The seed peer's encoder: SEED_MODEL's packaged weights in fp32 on the configured backend (a fake backend,
    for tests, stays fake)."""
    if embedding.backend == "fake":
        return embedding
    return embedding.model_copy(update={"model": SEED_MODEL, "model_path": None, "onnx_quantize": False})


def _seed_system(corpus: Sequence[Document], settings: Settings, embedder: Embedder) -> RetrievalSystem:
    from search_platform.evaluation.seed_stack import SeedStack

    def chunker(document: Document) -> list[tuple[str, str]]:
        chunks = chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens)
        return [(chunk.chunk_id, chunk.text) for chunk in chunks]

    return SeedStack.from_documents(list(corpus), chunker=chunker, embedder=embedder)


def refused_detail(not_indexed: Mapping[str, str], *, shown: int = 3) -> str:
    """What a report says of corpus documents ingestion refused (no mode can find them); nothing when none."""
    if not not_indexed:
        return ""
    reasons = "; ".join(f"{doc_id}: {reason}" for doc_id, reason in list(not_indexed.items())[:shown])
    more = f"; and {len(not_indexed) - shown} more" if len(not_indexed) > shown else ""
    count = len(not_indexed)
    return f"; {count} document{'' if count == 1 else 's'} not indexed ({reasons}{more})"


def run_eval(settings: Settings, options: EvalOptions) -> tuple[EvaluationReport, list[Path]]:
    """Ingest (once per corpus), evaluate the requested modes and peer, write JSON/Markdown/PNG reports."""
    started = time.perf_counter()
    dataset, corpus = load_eval_dataset(options.dataset, options.corpus, options.split)
    stages = [Stage("load dataset", time.perf_counter() - started, f"{len(corpus)} documents")]
    started = time.perf_counter()
    # uncached: every mode pays for its own query encoding, so latencies compare fairly
    with platform_session(settings, corpus, query_cache=False) as session:
        stages.append(Stage("platform index", time.perf_counter() - started,
                            f"{'reused' if session.index_reused else 'ingested through Celery'}: {session.index}"
                            + refused_detail(session.not_indexed)))
        systems: list[RetrievalSystem] = [PlatformSystem(mode, session.service, session.index, session.loop)
                                          for mode in options.modes]
        if options.peer == "seed":
            started = time.perf_counter()
            seed = seed_embedding(settings.embedding)
            embedder = session.embedder if seed == settings.embedding else build_embedder(seed)
            systems.append(_seed_system(corpus, settings, with_passage_cache(embedder, seed)))
            stages.append(Stage("seed peer index", time.perf_counter() - started,
                                f"chunk, embed with {seed.model} (on-disk passage-vector cache) and load Chroma + "
                                "rank_bm25"))
        report = run_evaluation(dataset, systems, top_k=options.top_k, fetch_k=100)
    report = replace(report, stages=(*stages, *report.stages))
    return report, write_reports(report, json_out=options.json_out, report_dir=options.report_dir)


def print_report(report: EvaluationReport) -> None:
    """The terminal table."""
    print(format_table(report))


def evaluate(
    dataset: Annotated[Path, typer.Option(exists=True, help="Golden-set JSON file or BEIR-format directory.")],
    corpus: Annotated[Path | None, typer.Option(help="Corpus directory for a golden-set file.")] = None,
    modes: Annotated[str, typer.Option(help="Comma-separated: bm25,semantic,hybrid.")] = "bm25,semantic,hybrid",
    peer: Annotated[str | None, typer.Option(help="Also run a peer stack: seed.")] = None,
    json_out: Annotated[Path | None, typer.Option(help="Where to write the JSON report.")] = None,
    report_dir: Annotated[Path | None, typer.Option(help="Directory for Markdown and PNG reports.")] = None,
    split: Annotated[str, typer.Option(help="BEIR directory: the judgments to evaluate, qrels/<split>.tsv.")
                     ] = DEFAULT_SPLIT,
) -> None:
    """Evaluate retrieval quality and latency per mode (and the seed peer) on a dataset."""
    from search_platform.domain.errors import SearchPlatformError

    settings = settings_or_exit()
    if peer not in (None, "seed"):
        raise typer.BadParameter(f"unknown peer {peer!r}: the only peer is 'seed'")
    try:
        options = EvalOptions(dataset, corpus, parse_modes(modes), peer, json_out, report_dir, split=split)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    try:
        report, paths = run_eval(settings, options)
    except SearchPlatformError as error:
        fail(str(error))
    print_report(report)
    for path in paths:
        typer.echo(f"wrote {path}")
