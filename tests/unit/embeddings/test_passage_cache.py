import subprocess
import sys

import pytest

from search_platform.embeddings.cache import CachingEmbedder, VectorStore
from search_platform.embeddings.fake import FakeEmbedder


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting the passages it really encodes."""

    def __init__(self) -> None:
        super().__init__(dims=8)
        self.encoded: list[str] = []

    def embed_documents(self, texts):
        self.encoded.extend(texts)
        return super().embed_documents(texts)


def test_only_unseen_passages_are_encoded_and_vectors_survive_a_reopen(tmp_path):
    inner = CountingEmbedder()
    cached = CachingEmbedder.in_directory(inner, tmp_path)
    first = cached.embed_documents(["alpha", "beta", "alpha"])
    probe_calls = len(inner.encoded) - 2  # the fingerprint probe
    assert inner.encoded[probe_calls:] == ["alpha", "beta"]
    again = CachingEmbedder.in_directory(inner, tmp_path).embed_documents(["beta", "gamma", "alpha"])
    assert inner.encoded[-1] == "gamma" and inner.encoded.count("alpha") == 1
    assert again[0] == pytest.approx(first[1], abs=1e-6) and again[2] == pytest.approx(first[0], abs=1e-6)
    assert again[1] == pytest.approx(inner.embed_documents(["gamma"])[0], abs=1e-6)


def test_another_model_never_reads_these_vectors(tmp_path):
    store = VectorStore(tmp_path / "v.sqlite3")
    one = CachingEmbedder(FakeEmbedder(dims=8), store, fingerprint="model-a")
    other = CachingEmbedder(FakeEmbedder(dims=8), store, fingerprint="model-b")
    one.embed_documents(["text"])
    assert store.get_many([other._key("text")]) == {}


# Run in a fresh interpreter: forking the test process itself, whose other tests left threads behind, can deadlock.
OPEN_AT_ONCE = """
import multiprocessing, sqlite3, sys
from pathlib import Path
from search_platform.embeddings.cache import VectorStore

def open_and_write(path, barrier, key):
    barrier.wait()
    try:
        VectorStore(Path(path)).put_many({key: [1.0, 2.0]})
    except sqlite3.Error as error:
        return repr(error)
    return "ok"

directory, processes, files = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
context = multiprocessing.get_context("fork")
with context.Manager() as manager, context.Pool(processes) as pool:
    barrier = manager.Barrier(processes)
    for n in range(files):
        path = str(directory / f"new-{n}.sqlite3")
        for outcome in pool.starmap(open_and_write, [(path, barrier, f"k{p}") for p in range(processes)]):
            print(outcome)
"""


def test_workers_opening_a_new_store_at_the_same_moment_all_succeed(tmp_path):
    processes, files = 6, 20
    run = subprocess.run([sys.executable, "-c", OPEN_AT_ONCE, str(tmp_path), str(processes), str(files)],
                         capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.splitlines() == ["ok"] * processes * files, run.stdout
    keys = [f"k{p}" for p in range(processes)]
    for n in range(files):
        assert set(VectorStore(tmp_path / f"new-{n}.sqlite3").get_many(keys)) == set(keys)
