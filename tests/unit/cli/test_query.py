import httpx
import pytest
import typer
from rich.console import Console
from search_platform_client import Hit, SearchResponse

from search_platform.cli.query import fusion_options, print_results, snippet_markup, view_options

UNSET = {"fusion": None, "alpha": None, "weight_bm25": None, "weight_dense": None, "normalization": None}


def test_unset_flags_give_no_options():
    assert fusion_options(**UNSET) == {}


def test_flags_become_sdk_keyword_arguments():
    options = fusion_options(**{**UNSET, "fusion": "dbsf", "alpha": 0.2, "weight_dense": 3.0,
                                "normalization": "zscore"})
    assert options == {"fusion": "dbsf", "alpha": 0.2, "weights": {"dense": 3.0}, "normalization": "zscore"}


def test_both_weights():
    assert fusion_options(**{**UNSET, "weight_bm25": 0.0, "weight_dense": 1.5}) == {
        "weights": {"bm25": 0.0, "dense": 1.5}}


@pytest.mark.parametrize(("flag", "value", "message"), [("fusion", "borda", "rrf, weighted_rrf, convex, dbsf"),
                                                         ("normalization", "l2", "minmax, zscore")])
def test_unknown_choices_are_bad_parameters(flag, value, message):
    with pytest.raises(typer.BadParameter, match=message):
        fusion_options(**{**UNSET, flag: value})


def test_view_flags_become_sdk_keyword_arguments():
    assert view_options(page=2, window=None, group_by="document", highlight=False, explain=True) == {
        "page": 2, "group_by": "document", "highlight": False, "explain": True}
    assert view_options(page=1, window=30, group_by="chunk", highlight=True, explain=False)["window"] == 30
    with pytest.raises(typer.BadParameter, match="chunk, document"):
        view_options(page=1, window=None, group_by="page", highlight=True, explain=False)


def hit(**fields) -> Hit:
    return Hit.model_validate({"rank": 1, "score": 0.5, "chunk_id": "c", "doc_id": "d", "chunk_index": 0,
                               "text": "Plain  [text]\nhere", **fields})


def test_snippet_markup_bolds_highlights_and_escapes_rich_markup():
    assert snippet_markup(hit(highlights=["a <em>[b]</em>", "c"])) == r"a [bold yellow]\[b][/bold yellow] … c"
    assert snippet_markup(hit()) == r"Plain \[text] here"


def test_print_results_shows_highlights_and_explanations():
    explanation = {"fusion": "rrf", "params": {"rrf_k": 60}, "score": 0.5,
                   "legs": {"bm25": {"rank": 1, "score": 7.5, "normalized": None, "contribution": 0.5}}}
    response = SearchResponse.model_validate({
        "mode": "hybrid", "index": "i", "top_k": 1, "candidate_k": 1, "rrf_k": 60, "fusion": "rrf", "took_ms": 1.0,
        "leg_took_ms": {}, "page": 2, "page_size": 1, "window": 10, "total_in_window": 4,
        "hits": [hit(highlights=["the <em>hinge</em>"], explanation=explanation).model_dump()]})
    console = Console(record=True, width=200)
    print_results(console, response)
    text = console.export_text()
    assert "page 2 · 4 in window 10" in text
    assert "the hinge" in text
    assert "rrf rrf_k=60" in text and "0.5000" in text


def test_explain_prints_the_stage_timings() -> None:
    explanation = {"fusion": "rrf", "params": {}, "score": 0.5, "legs": {}}
    console = Console(record=True, width=200)
    print_results(console, rerank_response(timings_ms={"auth": 0.42, "encode": 3.0, "bm25": 4.26},
                                           hits=[hit(explanation=explanation).model_dump()]))
    assert "stages (ms) · auth 0.4 · encode 3.0 · bm25 4.3" in console.export_text()


def test_rerank_flag_is_sent_only_when_given():
    assert view_options(page=1, window=None, group_by="chunk", highlight=True, explain=False, rerank=True)[
        "rerank"] is True
    assert view_options(page=1, window=None, group_by="chunk", highlight=True, explain=False, rerank=False)[
        "rerank"] is False
    assert "rerank" not in view_options(page=1, window=None, group_by="chunk", highlight=True, explain=False)


def rerank_response(**fields) -> SearchResponse:
    return SearchResponse.model_validate({
        "mode": "hybrid", "index": "i", "top_k": 1, "candidate_k": 1, "rrf_k": 60, "fusion": "rrf", "took_ms": 1.0,
        "leg_took_ms": {}, **fields})


def test_print_results_shows_rerank_scores_or_why_not():
    console = Console(record=True, width=200)
    print_results(console, rerank_response(reranked=True, hits=[hit(rerank_score=0.25).model_dump()]))
    print_results(console, rerank_response(rerank_reason="budget exceeded", hits=[hit().model_dump()]))
    text = " ".join(console.export_text().split())
    assert "reranked (* rerank score)" in text and "0.2500*" in text
    assert "not reranked: budget exceeded" in text


def test_query_command_has_rerank_flags():
    from typer.testing import CliRunner

    from search_platform.cli import app

    result = CliRunner().invoke(app, ["query", "--help"], env={"COLUMNS": "200"})
    assert "--rerank" in result.output and "--no-rerank" in result.output


def test_query_needs_only_the_api_url_and_key(api, monkeypatch, tmp_path):
    import json

    from typer.testing import CliRunner

    from search_platform.cli import app
    from tests.unit.cli.conftest import search_answer

    monkeypatch.chdir(tmp_path)  # no .env: Elasticsearch credentials are nowhere to be found
    for name in ("SP_ELASTICSEARCH__PASSWORD", "SP_ELASTICSEARCH__SERVICE_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    seen = api(lambda _: httpx.Response(200, json=search_answer()))
    result = CliRunner().invoke(app, ["query", "fox", "--format", "json"],
                                env={"SP_API_URL": "http://api.test:9000", "SP_API_KEY": "k1"})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["request_id"] == "r1"
    assert str(seen[0].url) == "http://api.test:9000/v1/search"
    assert seen[0].headers["authorization"] == "Bearer k1"


def test_query_jsonl_prints_one_hit_a_line(api):
    import json

    from typer.testing import CliRunner

    from search_platform.cli import app
    from tests.unit.cli.conftest import search_answer

    api(lambda _: httpx.Response(200, json=search_answer(hits=4)))
    result = CliRunner().invoke(app, ["query", "fox", "--format", "jsonl"])
    assert [json.loads(line)["rank"] for line in result.stdout.splitlines()] == [1, 2, 3, 4]


def test_query_table_at_80_columns_puts_each_hit_on_one_line(api):
    from typer.testing import CliRunner

    from search_platform.cli import app
    from tests.unit.cli.conftest import search_answer

    api(lambda _: httpx.Response(200, json=search_answer(hits=5)))
    result = CliRunner().invoke(app, ["query", "fox"], env={"COLUMNS": "80"})
    lines = result.stdout.splitlines()
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in lines) <= 80
    hit_lines = [line for line in lines if "a-rather-long" in line]
    assert len(hit_lines) == 5  # one line per hit, its cells cut rather than wrapped


def test_an_unreachable_api_is_one_line_and_exit_3(api):
    from typer.testing import CliRunner

    from search_platform.cli import app

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    api(refused)
    result = CliRunner().invoke(app, ["query", "fox", "--url", "http://nowhere.test:1"])
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1 and "--url" in result.stderr


def test_a_url_without_scheme_is_a_usage_error(api):
    from typer.testing import CliRunner

    from search_platform.cli import app

    result = CliRunner().invoke(app, ["query", "fox", "--url", "127.0.0.1:8000"])
    assert result.exit_code == 2
    assert "scheme" in result.stderr
