"""The embedding-model registry: names, loaders, split-archive extraction, prefixes, and the factory's use of them."""

from __future__ import annotations

import zipfile
from importlib.metadata import PackageNotFoundError
from pathlib import Path
from typing import Any, get_args

import pytest

from search_platform.config import EmbeddingModelName, EmbeddingSettings
from search_platform.embeddings import registry
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.embeddings.prefixed import PrefixedEmbedder, with_prefixes
from search_platform.embeddings.registry import (
    DEFAULT_MODEL,
    MODELS,
    ModelSpec,
    ModelUnavailableError,
    SplitZipModel,
    get_model,
    model_directory,
    safe_members,
)


def test_settings_names_are_exactly_the_registered_models() -> None:
    assert set(get_args(EmbeddingModelName)) == set(MODELS)
    assert EmbeddingSettings().model == DEFAULT_MODEL == "all-mpnet-base-v2"


def test_every_spec_is_named_by_its_key_and_fits_the_chunker() -> None:
    for name, spec in MODELS.items():
        assert spec.name == name
        assert spec.dims > 0 and spec.max_tokens >= 200  # chunking.max_tokens defaults to 200
        assert spec.licence


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="all-minilm-l6-v2"):
        get_model("no-such-model")


def test_model_path_overrides_the_registry_without_loading(tmp_path: Path) -> None:
    assert model_directory("all-mpnet-base-v2", model_path=tmp_path, cache_dir=tmp_path / "c") == tmp_path
    assert not (tmp_path / "c").exists()


def test_safe_members_keep_only_the_folder_and_never_pickles() -> None:
    names = ["m/", "m/model.safetensors", "m/pytorch_model.bin", "m/1_Pooling/config.json", "m/desktop.ini",
             "m/../evil.json", "/m/abs.json", "other/model.safetensors", "m/weights.pkl"]
    kept = {str(relative) for _, relative in safe_members(names, "m")}
    assert kept == {"model.safetensors", "1_Pooling/config.json"}


def test_safe_members_refuse_an_archive_without_safetensors() -> None:
    with pytest.raises(ModelUnavailableError, match="no safetensors"):
        safe_members(["m/pytorch_model.bin", "m/config.json"], "m")


class _File:
    def __init__(self, path: Path, root: Path) -> None:
        self._path = path
        self._relative = path.relative_to(root).as_posix()

    def __str__(self) -> str:
        return self._relative

    def locate(self) -> Path:
        return self._path


class _Dist:
    def __init__(self, files: list[_File]) -> None:
        self.files = files


def _split_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parts: int = 3) -> SplitZipModel:
    """A tiny model zipped and split into `parts` fake installed packages."""
    archive = tmp_path / "tiny.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("tiny/modules.json", "[]")
        zipped.writestr("tiny/model.safetensors", b"\x00" * 300)
        zipped.writestr("tiny/pytorch_model.bin", b"pickle")
    data = archive.read_bytes()
    size = len(data) // parts + 1
    site = tmp_path / "site"
    dists = {}
    for number in range(1, parts + 1):
        part = site / f"pkg_{number}" / f"tiny.zip.{number:03d}"
        part.parent.mkdir(parents=True)
        part.write_bytes(data[(number - 1) * size:number * size])
        dists[f"tiny-part-{number}"] = _Dist([_File(part, site)])

    def fake_distribution(name: str) -> Any:
        if name not in dists:
            raise PackageNotFoundError(name)
        return dists[name]

    monkeypatch.setattr(registry, "distribution", fake_distribution)
    return SplitZipModel(tuple(dists), archive="tiny.zip", folder="tiny", extra="tiny")


def test_split_archive_is_joined_and_extracted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loader = _split_model(tmp_path, monkeypatch)
    directory = loader(tmp_path / "cache")
    assert sorted(p.name for p in directory.iterdir()) == ["model.safetensors", "modules.json"]
    assert (directory / "model.safetensors").read_bytes() == b"\x00" * 300
    (directory / "marker").write_text("kept")
    assert loader(tmp_path / "cache") == directory and (directory / "marker").is_file()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [directory.name]  # no staging left behind


def test_a_missing_part_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loader = _split_model(tmp_path, monkeypatch)
    broken = SplitZipModel((*loader.distributions, "tiny-part-9"), archive="tiny.zip", folder="tiny", extra="tiny")
    with pytest.raises(ModelUnavailableError, match=r"uv pip install -e '\.\[tiny\]'"):
        broken(tmp_path / "cache")


def test_prefixes_reach_queries_and_passages_but_not_token_counts() -> None:
    inner = FakeEmbedder(dims=64)
    embedder = with_prefixes(inner, query_prefix="query: ", passage_prefix="passage: ")
    assert embedder.embed_query("open a file") == inner.embed_query("query: open a file")
    assert embedder.embed_documents(["open a file"]) == inner.embed_documents(["passage: open a file"])
    assert embedder.embed_query("open a file") != inner.embed_query("open a file")
    assert embedder.count_tokens("open a file") == 3 and embedder.dims == 64


def test_no_prefixes_means_no_wrapper() -> None:
    inner = FakeEmbedder()
    assert with_prefixes(inner, query_prefix="", passage_prefix="") is inner


def test_factory_loads_the_named_model_behind_its_prefixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from search_platform.embeddings import sentence_transformers

    loaded: list[Path] = []

    class Stub(FakeEmbedder):
        def __init__(self, path: Path, **_: object) -> None:
            super().__init__()
            loaded.append(path)

    spec = ModelSpec(name="all-mpnet-base-v2", locate=lambda cache: cache / "weights", dims=32, max_tokens=512,
                     licence="MIT", packages="-", query_prefix="q: ", passage_prefix="p: ")
    monkeypatch.setitem(MODELS, "all-mpnet-base-v2", spec)
    monkeypatch.setattr(sentence_transformers, "SentenceTransformerEmbedder", Stub)
    from search_platform.embeddings.factory import build_embedder

    embedder = build_embedder(EmbeddingSettings(backend="sentence-transformers", model="all-mpnet-base-v2",
                                                model_cache_dir=tmp_path))
    assert loaded == [tmp_path / "weights"]
    assert isinstance(embedder, PrefixedEmbedder) and embedder.query_prefix == "q: "
    build_embedder(EmbeddingSettings(backend="sentence-transformers", model="all-mpnet-base-v2",
                                     model_path=tmp_path / "local"))
    assert loaded[-1] == tmp_path / "local"
