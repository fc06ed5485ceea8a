"""The `tune` command's work: run the sweep of search configurations on every given dataset and write the macro
report (Markdown and JSON); defaults are chosen from it by hand, never changed by it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from search_platform.cli.common import fail, settings_or_exit
from search_platform.config import Settings
from search_platform.evaluation.datasets import EvalDataset
from search_platform.evaluation.dev_grid import BASELINE, default_grid
from search_platform.evaluation.macro_tuning import (
    MacroReport,
    SweepConfig,
    render_markdown,
    report_to_dict,
    run_macro_sweep,
)
from search_platform.evaluation.platform import PlatformSystem
from search_platform.evaluation.session import PlatformSession, load_eval_dataset, platform_session

DEFAULT_OUT = Path("benchmarks/reports/tuning-dev-sets.md")


def command_line(datasets: Sequence[Path], corpus: Path | None, out: Path) -> str:
    """The command that reproduces a report, quoted in it."""
    parts = " ".join(f"--dataset {path}" for path in datasets)
    corpus_part = f" --corpus {corpus}" if corpus else ""
    return f"search-platform tune {parts}{corpus_part} --out {out}"


def _sessions(stack: ExitStack, settings: Settings, loaded: Sequence[EvalDataset]) -> Iterator[PlatformSession]:
    for dataset in loaded:
        assert dataset.corpus is not None
        yield stack.enter_context(platform_session(settings, dataset.corpus, query_cache=True))


def run_tune(settings: Settings, datasets: Sequence[Path], corpus_dir: Path | None,
             out: Path | None = None) -> tuple[MacroReport, list[Path]]:
    """Ingest each dataset's corpus (once per corpus), run the grid on all of them, write Markdown and JSON."""
    loaded = [load_eval_dataset(path, corpus_dir if path.is_file() else None)[0] for path in datasets]
    with ExitStack() as stack:
        sessions = dict(zip((d.name for d in loaded), _sessions(stack, settings, loaded), strict=True))

        def system_for(dataset: EvalDataset, config: SweepConfig) -> PlatformSystem:
            session = sessions[dataset.name]
            return PlatformSystem(config.mode, session.service_with(config.retrieval), session.index, session.loop,
                                  params=config.params, label=config.label)

        report = run_macro_sweep(loaded, default_grid(settings.retrieval), system_for, baseline=BASELINE)
    markdown = out or DEFAULT_OUT
    markdown.parent.mkdir(parents=True, exist_ok=True)
    markdown.write_text(render_markdown(report, command=command_line(datasets, corpus_dir, markdown)))
    json_path = markdown.with_suffix(".json")
    json_path.write_text(json.dumps(report_to_dict(report), indent=2) + "\n")
    return report, [markdown, json_path]



def tune(
    dataset: Annotated[list[Path], typer.Option(exists=True, help="Golden-set JSON file or BEIR-format directory; "
                                                                  "repeat for every dev set.")],
    corpus: Annotated[Path | None, typer.Option(help="Corpus directory for a golden-set file.")] = None,
    out: Annotated[Path | None, typer.Option(help="Markdown report (JSON next to it); default "
                                                  "benchmarks/reports/tuning-dev-sets.md.")] = None,
) -> None:
    """Run the sweep of search configurations on every dataset and report macro nDCG@10; defaults are not changed."""
    from search_platform.domain.errors import SearchPlatformError

    settings = settings_or_exit()
    try:
        report, paths = run_tune(settings, dataset, corpus, out)
    except SearchPlatformError as error:
        fail(str(error))
    best = report.best()
    typer.echo(f"best: {best.config.label} macro nDCG@10 {best.macro:.3f} "
               f"(default: {report.row(report.baseline).macro:.3f})")
    for path in paths:
        typer.echo(f"wrote {path}")
