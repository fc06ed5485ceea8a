"""Which chunk size (tokens of the embedding model's tokenizer) suits hybrid document search on the dev sets?

    .venv/bin/python benchmarks/chunk_size.py --sizes 128,200,256 \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --out benchmarks/reports/chunk-size.md

Needs Elasticsearch and Redis up (`search-platform up`) and no worker running: for each size it starts its own
worker with SP_CHUNKING__MAX_TOKENS set (chunks are made by the worker, with the worker's settings), evaluates the
default hybrid mode on every dataset the way `search-platform eval` does (the corpus ingested once per size into its
own evaluation index, reused on a rerun; passage vectors come from the on-disk cache when a chunk was seen before),
then stops the worker. Prints nDCG@10 per size: macro over the datasets and each dataset all / exact_match /
conceptual / mixed. Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lexical_lists import CATEGORIES, publish, table_header, table_row

from search_platform.cli.evaluate import EvalOptions, run_eval
from search_platform.config import Settings, load_settings
from search_platform.domain.models import SearchMode
from search_platform.evaluation.runner import EvaluationReport
from search_platform.ingestion.queue import create_celery

WORKER_START_S = 600.0
CLI = str(Path(sys.executable).parent / "search-platform")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="128,200,256", help="comma-separated chunk sizes in tokens")
    parser.add_argument("--dataset", type=Path, action="append", required=True)
    parser.add_argument("--corpus", type=Path, help="corpus directory of a golden-set file")
    parser.add_argument("--out", type=Path, help="Markdown report (printed too)")
    return parser.parse_args()


def start_worker(size: int, settings: Settings) -> subprocess.Popen[bytes]:
    """A worker whose chunks are `size` tokens, once it answers a ping."""
    celery = create_celery(settings)
    if celery.control.ping(timeout=2.0):
        raise SystemExit("a worker is already running: stop it (it would chunk with its own settings)")
    env = {**os.environ, "SP_CHUNKING__MAX_TOKENS": str(size)}
    worker = subprocess.Popen([CLI, "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + WORKER_START_S
    while not celery.control.ping(timeout=2.0):
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            raise SystemExit(f"the worker for chunk size {size} did not start")
    return worker


def evaluate(size: int, args: argparse.Namespace) -> list[EvaluationReport]:
    base = load_settings()
    settings = base.model_copy(update={"chunking": base.chunking.model_copy(update={"max_tokens": size})})
    worker = start_worker(size, settings)
    try:
        with tempfile.TemporaryDirectory() as scratch:  # the per-dataset reports; this one summarises them
            return [run_eval(settings, EvalOptions(dataset=path, corpus=args.corpus if path.is_file() else None,
                                                   modes=(SearchMode.HYBRID,), peer=None, json_out=None,
                                                   report_dir=Path(scratch)))[0]
                    for path in args.dataset]
    finally:
        worker.terminate()
        worker.wait(timeout=60)


def scores(reports: list[EvaluationReport]) -> dict[str, dict[str, float]]:
    """Default hybrid's nDCG@10 per dataset: overall and per category (what table_row reads)."""
    return {report.dataset: {"all": report.summaries["hybrid"].overall["ndcg_at_10"],
                             **{category: values["ndcg_at_10"]
                                for category, values in report.summaries["hybrid"].by_category.items()}}
            for report in reports}


def main() -> None:
    args = arguments()
    sizes = [int(size) for size in args.sizes.split(",")]
    results = {size: scores(evaluate(size, args)) for size in sizes}
    names = list(results[sizes[0]])
    lines = ["# Chunk size (nDCG@10 of default hybrid)", "",
             f"Command: `python benchmarks/chunk_size.py {' '.join(sys.argv[1:])}`  ",
             "Each dataset: all / exact_match / conceptual / mixed", "",
             *table_header(("max_tokens",), names, "")]
    lines += [table_row(str(size), result, details=CATEGORIES, digits=4) for size, result in results.items()]
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
