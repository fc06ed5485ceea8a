import pytest
import typer

from search_platform.cli_query import fusion_options

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
