import json
from dataclasses import dataclass, field

import pytest

from search_platform.domain.models import Leg
from search_platform.evaluation.runner import RankedDoc
from search_platform.evaluation.tuning import (
    TuningConfig,
    default_grid,
    route_counts,
    rrf_label,
    run_sweep,
)
from search_platform.evaluation.tuning_report import render_tuning_markdown, tuning_to_dict, write_tuning_reports

from .conftest import make_dataset


@dataclass
class FakeSystem:
    """Finds the relevant document at rank `rank_by_category[category]` (None: not at all)."""

    name: str
    rank_by_category: dict[str, int | None]
    calls: list[str] = field(default_factory=list)

    def search(self, query: str, *, top_k: int) -> list[RankedDoc]:
        self.calls.append(query)
        category, _, number = query.partition(" question ")
        docs = [f"noise-{j}" for j in range(top_k)]
        rank = self.rank_by_category.get(category)
        if rank is not None:
            docs.insert(rank - 1, f"rel-{category}-{number}")
        return [RankedDoc(doc_id=doc, score=1.0 / (i + 1)) for i, doc in enumerate(docs[:top_k])]


CONFIGS = [
    TuningConfig("rrf", "rrf k=60 c=100", {"fusion": "rrf", "rrf_k": 60, "candidate_k": 100}),
    TuningConfig("rrf", "rrf k=10 c=100", {"fusion": "rrf", "rrf_k": 10, "candidate_k": 100}),
    TuningConfig("convex", "convex alpha=0.3 minmax", {"fusion": "convex", "alpha": 0.3}),
    TuningConfig("routed", "routed", {"fusion": "routed"}),
    TuningConfig("tech", "rrf k=60 c=100 tech=0", {"fusion": "rrf", "tech_boost": 0.0}),
]
RANKS = {
    "rrf k=60 c=100": {"exact_match": 2, "conceptual": 2, "mixed": 2},
    "rrf k=10 c=100": {"exact_match": 1, "conceptual": 2, "mixed": 2},
    "convex alpha=0.3 minmax": {"exact_match": 1, "conceptual": 1, "mixed": 3},
    "routed": {"exact_match": 1, "conceptual": 3, "mixed": 2},
    "rrf k=60 c=100 tech=0": {"exact_match": None, "conceptual": 2, "mixed": 2},
}


@pytest.fixture
def systems():
    return {}


@pytest.fixture
def report(systems):
    def system_for(config):
        systems[config.label] = FakeSystem(config.label, RANKS[config.label])
        return systems[config.label]

    return run_sweep(make_dataset(), CONFIGS, system_for, baseline="rrf k=60 c=100", top_k=10, fetch_k=20)


def test_every_configuration_runs_every_query_and_the_first_warms_every_query(report, systems):
    n = len(make_dataset().queries)
    assert [row.config.label for row in report.rows] == [c.label for c in CONFIGS]
    assert len(systems["rrf k=60 c=100"].calls) == 2 * n  # untimed pass over every query, then the timed pass
    assert all(len(systems[c.label].calls) == n + 1 for c in CONFIGS[1:])  # one warm-up query


def test_metrics_per_configuration_and_category(report):
    base = report.row("rrf k=60 c=100")
    assert base.ndcg == pytest.approx(1 / 1.584962500721156)  # 1 / log2(3): relevant doc at rank 2
    assert report.row("rrf k=60 c=100 tech=0").category_ndcg("exact_match") == 0.0
    assert report.row("rrf k=10 c=100").category_ndcg("exact_match") == 1.0


def test_best_overall_and_per_family(report):
    assert report.best().config.label == "convex alpha=0.3 minmax"
    assert report.best("rrf").config.label == "rrf k=10 c=100"
    assert report.families() == ["rrf", "convex", "routed", "tech"]


def test_routing_verdict_refuses_a_category_loss_over_the_tolerance(report):
    verdict = report.routing
    assert verdict is not None
    assert verdict.overall_delta > 0
    assert verdict.category_deltas["conceptual"] < -0.01
    assert not verdict.beats_default


def test_labels_must_be_unique_and_include_the_baseline():
    with pytest.raises(ValueError, match="baseline"):
        run_sweep(make_dataset(), CONFIGS, lambda c: FakeSystem(c.label, {}), baseline="missing")


def test_markdown_marks_best_and_default_and_says_latency_excludes_encoding(report):
    text = render_tuning_markdown(report, command="search-platform tune --dataset d.json")
    assert "| convex alpha=0.3 minmax | **" in text
    assert "**best**" in text and "default |" in text
    assert "excludes query encoding" in text
    assert "keep routing off" in text and "| Δ [95% CI] |" in text
    assert "## Technical-terms field (tech_boost: 0 = off)" in text


def test_json_and_markdown_are_written_side_by_side(report, tmp_path):
    paths = write_tuning_reports(report, tmp_path / "tuning" / "set.md", command="tune")
    assert [p.name for p in paths] == ["set.md", "set.json"]
    data = json.loads(paths[1].read_text())
    assert data["best"] == "convex alpha=0.3 minmax"
    assert data["routing"]["beats_default"] is False
    assert tuning_to_dict(report)["configs"][0]["by_category"]["mixed"] == pytest.approx(1 / 1.584962500721156)


def test_default_grid_covers_the_families_with_unique_labels():
    grid = default_grid(rrf_k=60, candidate_k=100)
    labels = [config.label for config in grid]
    assert len(labels) == len(set(labels)) and rrf_label(60, 100) in labels
    assert {config.family for config in grid} == {"rrf", "weighted_rrf", "convex", "dbsf", "routed", "tech"}
    assert len([c for c in grid if c.family == "rrf"]) == 12
    assert {"fusion": "weighted_rrf", "weights": {Leg.BM25: 0.7, Leg.DENSE: 1.3}, "rrf_k": 60,
            "candidate_k": 100} in [c.params for c in grid]
    assert [c.params["tech_boost"] for c in grid if c.family == "tech"] == [0.0, 1.0]


def test_route_counts_per_category():
    counts = route_counts(make_dataset(n_per_category=2))
    assert set(counts) == {"exact_match", "conceptual", "mixed"}
    assert all(sum(routes.values()) == 2 for routes in counts.values())
