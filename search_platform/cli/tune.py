"""The `tune` command's work: sweep fusion parameters of hybrid mode on a dataset and write the tables."""

from __future__ import annotations

from pathlib import Path

from search_platform.config import Settings
from search_platform.domain.models import SearchMode
from search_platform.evaluation.platform import PlatformSystem
from search_platform.evaluation.session import load_eval_dataset, platform_session
from search_platform.evaluation.tuning import TuningConfig, TuningReport, default_grid, rrf_label, run_sweep
from search_platform.evaluation.tuning_report import write_tuning_reports

DEFAULT_TUNING_DIR = Path("benchmarks/tuning")


def default_out(dataset: Path) -> Path:
    """benchmarks/tuning/<dataset name>.md."""
    return DEFAULT_TUNING_DIR / f"{dataset.stem}.md"


def command_line(dataset: Path, corpus: Path | None, out: Path) -> str:
    """The command that reproduces a report, quoted in it."""
    corpus_part = f" --corpus {corpus}" if corpus else ""
    return f"search-platform tune --dataset {dataset}{corpus_part} --out {out}"


def run_tune(settings: Settings, dataset_path: Path, corpus_dir: Path | None,
             out: Path | None = None) -> tuple[TuningReport, list[Path]]:
    """Ingest (once per corpus), run the grid with the query-embedding cache on, write Markdown and JSON."""
    dataset, corpus = load_eval_dataset(dataset_path, corpus_dir)
    retrieval = settings.retrieval
    grid = default_grid(rrf_k=retrieval.rrf_k, candidate_k=retrieval.candidate_k)
    with platform_session(settings, corpus, query_cache=True) as session:

        def system_for(config: TuningConfig) -> PlatformSystem:
            return PlatformSystem(SearchMode.HYBRID, session.service, session.index, session.loop,
                                  params=config.params, label=config.label)

        report = run_sweep(dataset, grid, system_for, baseline=rrf_label(retrieval.rrf_k, retrieval.candidate_k))
    markdown = out or default_out(dataset_path)
    return report, write_tuning_reports(report, markdown, command=command_line(dataset_path, corpus_dir, markdown))
