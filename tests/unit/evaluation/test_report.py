"""Report rendering: JSON schema keys, Markdown decision report, PNG plots, terminal table."""

from __future__ import annotations

import json
from dataclasses import replace

from search_platform.evaluation.misses import worst_queries
from search_platform.evaluation.report import format_table, render_markdown, report_to_dict, write_reports
from search_platform.evaluation.runner import Stage

QUALITY_KEYS = {"ndcg_at_10", "recall_at_5", "recall_at_10", "mrr"}


def test_write_reports_produces_json_markdown_and_pngs(report, tmp_path):
    paths = write_reports(report, report_dir=tmp_path / "reports")
    json_path, md_path, *pngs = paths
    assert json_path.parent == tmp_path / "reports"
    assert json_path.name.startswith("eval-synthetic-set-") and json_path.suffix == ".json"
    data = json.loads(json_path.read_text())
    assert {"dataset", "created_at", "retrievers", "comparisons", "regression"} <= set(data)
    assert set(data["retrievers"]) == {"bm25", "semantic", "hybrid", "seed"}
    hybrid = data["retrievers"]["hybrid"]
    assert QUALITY_KEYS | {"p50_ms", "p95_ms", "metrics", "by_category"} <= set(hybrid)
    assert {f"{m}_at_{k}" for m in ("precision", "recall", "hit_rate") for k in (1, 3, 5, 10)} <= set(hybrid["metrics"])
    assert set(hybrid["by_category"]) == {"exact_match", "conceptual", "mixed"}
    assert set(hybrid["by_category"]["mixed"]) >= QUALITY_KEYS
    comparison = data["comparisons"]["hybrid_vs_bm25"]["metrics"]["ndcg_at_10"]
    assert {"delta", "ci_low", "ci_high", "p_value"} <= set(comparison)
    assert data["regression"]["overall"]["significant_regression"] is True
    assert data["regression"]["any_worse_point_estimate"] is True
    assert "## Recommendation" in md_path.read_text()
    assert [p.suffix for p in pngs] == [".png", ".png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)


def test_json_out_overrides_the_json_location(report, tmp_path):
    out = tmp_path / "out" / "result.json"
    paths = write_reports(report, json_out=out, report_dir=tmp_path / "r")
    assert paths[0] == out
    assert json.loads(out.read_text())["dataset"] == "synthetic set"


def test_markdown_recommends_against_a_regressing_hybrid(report):
    text = render_markdown(report)
    assert "**Do not ship hybrid as the default**" in text
    assert "When hybrid does not pay" in text
    assert "| exact_match | 4 |" in text
    assert report_to_dict(report)["n_queries"] == 12


def test_format_table_lists_every_retriever(report):
    table = format_table(report)
    assert table.splitlines()[0].split()[:5] == ["retriever", "nDCG@10", "R@5", "R@10", "MRR"]
    assert all(name in table for name in ("bm25", "semantic", "hybrid", "seed", "hybrid_vs_semantic"))


def test_stages_are_timed_per_system_and_rendered_everywhere(report):
    assert [stage.name for stage in report.stages] == [
        "queries: bm25", "queries: semantic", "queries: hybrid", "queries: seed"]
    assert all(stage.seconds >= 0 and stage.detail == "12 queries + 1 warm-up" for stage in report.stages)
    staged = replace(report, stages=(Stage("platform index", 12.25, "reused: sp-eval-abc"),))
    assert render_markdown(staged).split("## Where the time went\n\n")[1].startswith(
        "| stage | seconds | detail |\n|---|---|---|\n| platform index | 12.2 | reused: sp-eval-abc |\n")
    assert report_to_dict(staged)["stages"] == [
        {"name": "platform index", "seconds": 12.25, "detail": "reused: sp-eval-abc"}]
    assert format_table(staged).splitlines()[-1] == "stages: platform index 12.2 s"


def test_markdown_lists_where_hybrid_misses_with_every_retrievers_rank(report):
    section = render_markdown(report).split("## Where hybrid misses\n\n")[1].split("\n## ")[0]
    lines = section.splitlines()
    assert lines[0].startswith("The 10 queries per category with hybrid's lowest nDCG@10 below 1")
    assert lines[2:7] == [
        "### exact_match: 4 of 4 below 1",
        "",
        "| query | judged best | nDCG@10 | bm25 | semantic | hybrid | seed | hybrid's first |",
        "|---|---|---|---|---|---|---|---|",
        "| exact_match question 0 | rel-exact_match-0 (1) | 0.631 | 1 | 3 | 2 | 2 | noise-0 |",
    ]
    assert "| conceptual question 3 | rel-conceptual-3 (1) | 0.631 | - | 1 | 2 | 2 | noise-0 |" in lines


def test_misses_put_the_worst_first_name_the_best_judged_page_and_escape_cells(report):
    query = replace(report.queries[0], text="a | b\nc", relevance={"noise-5": 1, "rel-exact_match-0": 2})
    perfect = replace(report.systems["hybrid"].results["exact_match-1"], scores={"ndcg_at_10": 1.0})
    hybrid = replace(report.systems["hybrid"], results={**report.systems["hybrid"].results, "exact_match-1": perfect})
    changed = replace(report, queries=(query, *report.queries[1:]), systems={**report.systems, "hybrid": hybrid})
    (exact, *_rest) = worst_queries(changed, "hybrid", per_category=2)
    assert (exact.queries, exact.missed) == (4, 3)
    assert [miss.query.query_id for miss in exact.worst] == ["exact_match-0", "exact_match-2"]
    first = exact.worst[0]
    assert (first.judged, first.grade, first.also_judged, first.first) == ("rel-exact_match-0", 2, 1, "noise-0")
    assert first.ranks == {"bm25": 1, "semantic": 3, "hybrid": 2, "seed": 2}
    assert "| a \\| b c | rel-exact_match-0 (2, +1) |" in render_markdown(changed)


def test_no_misses_section_without_a_hybrid_retriever(report):
    only_bm25 = replace(report, systems={"bm25": report.systems["bm25"]})
    assert "misses" not in render_markdown(only_bm25)
