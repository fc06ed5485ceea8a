"""Report rendering: JSON schema keys, Markdown decision report, PNG plots, terminal table."""

from __future__ import annotations

import json
from dataclasses import replace

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
