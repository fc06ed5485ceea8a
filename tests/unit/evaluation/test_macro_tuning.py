import math
from dataclasses import replace

import pytest

from search_platform.config import RetrievalSettings
from search_platform.domain.models import SearchMode
from search_platform.evaluation.dev_grid import BASELINE, default_grid
from search_platform.evaluation.macro_tuning import SweepConfig, render_markdown, report_to_dict, run_macro_sweep
from tests.unit.evaluation.conftest import ScriptedSystem, make_dataset


def answers(dataset, *, right: set[str]) -> dict[str, list[str]]:
    """Each query of a category in `right` finds its relevant doc first, the others find nothing relevant."""
    return {q.text: [next(iter(q.relevance))] if q.category in right else ["noise"] for q in dataset.queries}


def test_macro_is_the_mean_over_datasets_whatever_their_size():
    small = replace(make_dataset(1), name="small")
    large = replace(make_dataset(4), name="large")
    configs = [SweepConfig("default", BASELINE), SweepConfig("x", "exact only")]
    right = {BASELINE: {"exact_match", "conceptual", "mixed"}, "exact only": {"exact_match"}}

    def system_for(dataset, config):
        return ScriptedSystem(config.label, answers(dataset, right=right[config.label]))

    report = run_macro_sweep([small, large], configs, system_for, baseline=BASELINE)
    assert report.datasets == {"small": 3, "large": 12}
    assert report.row(BASELINE).macro == pytest.approx(1.0)
    exact_only = report.row("exact only")
    assert exact_only.macro == pytest.approx((1 / 3 + 1 / 3) / 2)
    assert exact_only.macro_category("exact_match") == pytest.approx(1.0)
    assert exact_only.macro_category("conceptual") == pytest.approx(0.0)
    assert math.isnan(exact_only.macro_category("unknown"))
    assert report.best().config.label == BASELINE
    markdown = render_markdown(report, command="search-platform tune")
    assert "| default | default | hybrid | 1.000 |" in markdown
    assert report_to_dict(report)["rows"][1]["per_dataset"]["small"]["overall"] == pytest.approx(1 / 3)


def test_labels_must_be_unique_and_hold_the_baseline():
    with pytest.raises(ValueError, match="unique"):
        run_macro_sweep([make_dataset(1)], [SweepConfig("a", "x"), SweepConfig("b", "x")],
                        lambda d, c: ScriptedSystem(c.label, {}), baseline="x")


def test_default_grid_starts_with_the_defaults_and_has_unique_labels():
    grid = default_grid(RetrievalSettings())
    assert grid[0] == SweepConfig("default", BASELINE)
    assert len({config.label for config in grid}) == len(grid)
    assert {config.mode for config in grid} == {SearchMode.HYBRID, SearchMode.BM25, SearchMode.SEMANTIC}
    for config in grid:
        RetrievalSettings(**{**RetrievalSettings().model_dump(), **config.retrieval})


def test_default_grid_varies_the_phrase_clause_around_the_default():
    boosts = [config.retrieval["phrase_boost"] for config in default_grid(RetrievalSettings(phrase_boost=3.0))
              if config.family == "phrase"]
    assert boosts == [0.0, 1.0]


def test_default_grid_varies_the_option_clause_around_the_default():
    boosts = [config.retrieval["option_boost"] for config in default_grid(RetrievalSettings(option_boost=1.0))
              if config.family == "option"]
    assert boosts == [0.0, 3.0]


def test_default_grid_varies_the_lead_list_around_the_default():
    tables = {config.label: config.retrieval["route_weights"] for config in default_grid(RetrievalSettings())
              if config.family == "lead"}
    assert {label: table["semantic"]["dense_lead"] for label, table in tables.items()} == {
        "lead semantic 0": 0.0, "lead semantic 0.25": 0.25, "lead semantic 1": 1.0, "lead 0.5 on every route": 0.5}
    assert tables["lead 0.5 on every route"]["lexical"] == {"bm25": 1.0, "dense": 0.25, "dense_lead": 0.5,
                                                            "definitions": 0.5}
    assert tables["lead semantic 0"]["lexical"]["dense_lead"] == 0.0


def test_default_grid_varies_the_definitions_list_on_every_route_and_on_the_lexical_one():
    tables = {config.label: config.retrieval["route_weights"] for config in default_grid(RetrievalSettings())
              if config.family == "definitions"}
    assert {label: {route: arm["definitions"] for route, arm in table.items()} for label, table in tables.items()} == {
        **{f"definitions {weight:g} on every route": dict.fromkeys(("lexical", "semantic", "mixed"), weight)
           for weight in (0.0, 0.25, 0.5, 1.0)},
        **{f"definitions lexical {weight:g}": {"lexical": weight, "semantic": 0.25, "mixed": 0.25}
           for weight in (0.0, 0.25, 1.0)}}
    assert tables["definitions 0 on every route"]["semantic"] == {"bm25": 0.3, "dense": 1.0, "dense_lead": 0.5,
                                                                  "definitions": 0.0}


def test_the_routed_variants_keep_the_opt_in_lists_of_the_defaults():
    tables = {config.label: config.retrieval["route_weights"] for config in default_grid(RetrievalSettings())
              if config.family == "routed"}
    assert tables["routed lexical 1/0.25 semantic 1/1"] == {
        "lexical": {"bm25": 1.0, "dense": 0.25, "dense_lead": 0.0, "definitions": 0.5},
        "semantic": {"bm25": 1.0, "dense": 1.0, "dense_lead": 0.5, "definitions": 0.25},
        "mixed": {"bm25": 1.0, "dense": 1.0, "dense_lead": 0.0, "definitions": 0.25}}
