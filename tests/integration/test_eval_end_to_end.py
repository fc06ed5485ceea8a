"""`eval` end to end on a tiny BEIR-format directory: ingestion through the real worker, all modes, the seed peer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from search_platform.cli.evaluate import EvalOptions, run_eval
from search_platform.domain.models import SearchMode
from search_platform.evaluation.datasets import load_dataset
from tests.integration.corpus import DOCUMENTS

pytestmark = pytest.mark.integration

QUERIES = [
    ("q1", "KX9ZQ4471", "exact_match", "cabinet-parts"),
    ("q2", "how should I hydrate vegetable plants when it is very warm outside", "conceptual", "tomatoes"),
    ("q3", "ERR_NETWORK_TIMEOUT_504 gateway did not answer", "mixed", "network-errors"),
    ("q4", "wild yeast bread", "conceptual", "bread"),
]


def write_beir(root: Path) -> Path:
    root.mkdir()
    with (root / "corpus.jsonl").open("w") as corpus:
        for doc in DOCUMENTS:
            corpus.write(json.dumps({"_id": doc["doc_id"], "title": doc["title"], "text": doc["content"]}) + "\n")
        corpus.write(json.dumps({"_id": "binary", "title": "", "text": "abc\u0000def"}) + "\n")  # refused
    with (root / "queries.jsonl").open("w") as queries:
        for qid, text, category, _ in QUERIES:
            queries.write(json.dumps({"_id": qid, "text": text, "metadata": {"category": category}}) + "\n")
    (root / "qrels").mkdir()
    rows = ["query-id\tcorpus-id\tscore", *(f"{qid}\t{doc}\t1" for qid, _, _, doc in QUERIES)]
    (root / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")
    return root


def test_eval_on_beir_directory(services, worker, tmp_path):
    dataset = write_beir(tmp_path / "tiny-beir")
    options = EvalOptions(dataset=dataset, corpus=None, modes=tuple(SearchMode), peer="seed",
                          json_out=tmp_path / "report.json", report_dir=tmp_path / "reports")
    report, paths = run_eval(services, options)

    data = json.loads((tmp_path / "report.json").read_text())
    assert set(data["retrievers"]) == {"bm25", "semantic", "hybrid", "seed"}
    for name, retriever in data["retrievers"].items():
        for key in ("ndcg_at_10", "recall_at_5", "recall_at_10", "mrr", "p50_ms", "p95_ms"):
            assert isinstance(retriever[key], float), (name, key)
        assert set(retriever["by_category"]) == {"exact_match", "conceptual", "mixed"}
    # every query has one relevant document, which hybrid finds in its top 10
    assert data["retrievers"]["hybrid"]["recall_at_10"] == 1.0
    assert data["retrievers"]["bm25"]["by_category"]["exact_match"]["mrr"] == 1.0
    assert "hybrid_vs_semantic" in data["comparisons"] and "hybrid_vs_bm25" in data["comparisons"]
    suffixes = sorted(p.suffix for p in paths)
    assert suffixes == [".json", ".md", ".png", ".png"]
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)

    again, _ = run_eval(services, options)  # the index is reused, not re-ingested
    assert again.summaries["hybrid"].overall == report.summaries["hybrid"].overall
    stages = [stage.name for stage in report.stages]
    assert stages[:3] == ["load dataset", "platform index", "seed peer index"]
    assert set(stages[3:]) == {f"queries: {name}" for name in data["retrievers"]}
    assert [stage.name for stage in again.stages] == stages
    assert again.stages[1].detail.startswith("reused: sp-eval-")  # nothing re-embedded the second time
    refused = ("; 1 document not indexed (binary: content contains the control or surrogate character U+0000 at "
               "offset 3)")
    assert report.stages[1].detail.endswith(refused) and again.stages[1].detail.endswith(refused)
    assert [stage["name"] for stage in data["stages"]] == stages


def test_an_index_whose_chunks_the_worker_made_otherwise_is_refused_and_removed(services, worker, tmp_path):
    """The worker's own settings shape the chunks; an evaluation process counting other chunks (another chunk size in
    its environment) must not name the index for them."""
    from search_platform.backends.elasticsearch.client import build_client
    from search_platform.evaluation.platform import EvaluationSetupError, corpus_fingerprint, ensure_evaluation_index
    from search_platform.ingestion.queue import create_celery

    corpus = load_dataset(write_beir(tmp_path / "other-chunks")).corpus
    assert corpus is not None
    with pytest.raises(EvaluationSetupError, match="the worker runs with other settings"):
        ensure_evaluation_index(services, corpus, create_celery(services), encoder="other-chunks",
                                count_chunks=lambda document: 1000)
    es = build_client(services.elasticsearch)
    try:
        alias = f"sp-eval-{corpus_fingerprint(corpus, services, encoder='other-chunks')}"
        assert not es.indices.exists_alias(name=alias)
        assert not es.indices.exists(index=f"{alias}-*", allow_no_indices=False)
    finally:
        es.close()


def test_an_index_of_an_older_mapping_version_is_rebuilt_not_reused(services, worker, tmp_path):
    """The mapping version also names how ingestion derives stored fields (`defines`): an evaluation index behind the
    same fingerprint but built at another version (by older code) is ingested anew."""
    from redis import Redis

    from search_platform.backends.elasticsearch.client import build_client
    from search_platform.backends.elasticsearch.mappings import MAPPING_VERSION, delete_index, versioned_index_name
    from search_platform.embeddings.factory import build_embedder
    from search_platform.evaluation.platform import corpus_fingerprint, ensure_evaluation_index
    from search_platform.ingestion.pipeline import chunk_document
    from search_platform.ingestion.queue import create_celery

    corpus = load_dataset(write_beir(tmp_path / "older-version")).corpus
    assert corpus is not None
    count_tokens = build_embedder(services.embedding).count_tokens
    alias = f"sp-eval-{corpus_fingerprint(corpus, services, encoder='older-version')}"
    older = versioned_index_name(alias, MAPPING_VERSION - 1)
    es = build_client(services.elasticsearch)
    redis: Redis[bytes] = Redis.from_url(services.redis.url)
    try:
        es.indices.create(index=older, aliases={alias: {}})
        redis.set(f"sp:eval:{alias}", json.dumps({"not_indexed": {}}))  # as if an earlier run had finished it

        index = ensure_evaluation_index(services, corpus, create_celery(services), encoder="older-version",
                                        count_chunks=lambda document: len(chunk_document(
                                            document, chunking=services.chunking, count_tokens=count_tokens)))

        assert not index.reused
        assert list(es.indices.get_alias(name=alias)) == [versioned_index_name(alias)]
        assert not es.indices.exists(index=older)
    finally:
        delete_index(es, alias=alias)
        redis.delete(f"sp:eval:{alias}")
        es.close()
        redis.close()
