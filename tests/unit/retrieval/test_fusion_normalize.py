import math

import pytest

from search_platform.retrieval.fusion import NORMALIZERS, Normalization
from search_platform.retrieval.fusion.normalize import mean_std, minmax, three_sigma, zscore


def test_minmax_maps_to_the_unit_interval_and_absent_to_zero():
    scores, absent = minmax([9.0, 5.0, 1.0])
    assert scores == pytest.approx([(9 - 1) / (9 - 1), (5 - 1) / (9 - 1), (1 - 1) / (9 - 1)])
    assert absent == 0.0


@pytest.mark.parametrize("scores", [[4.0, 4.0, 4.0], [7.5]])
def test_minmax_of_equal_scores_or_one_score_is_one(scores):
    assert minmax(scores) == ([1.0] * len(scores), 0.0)


def test_zscore_uses_population_std_and_absent_is_the_lowest_z():
    std = math.sqrt(((9 - 5) ** 2 + (5 - 5) ** 2 + (1 - 5) ** 2) / 3)
    scores, absent = zscore([9.0, 5.0, 1.0])
    assert scores == pytest.approx([(9 - 5) / std, 0.0, (1 - 5) / std])
    assert absent == pytest.approx((1 - 5) / std)


@pytest.mark.parametrize("scores", [[0.1, 0.1, 0.1], [0.3]])
def test_zscore_with_std_zero_is_zero(scores):
    assert zscore(scores) == ([0.0] * len(scores), 0.0)


def test_three_sigma_uses_sample_std():
    # mean 2, sample std sqrt((1 + 0 + 1) / 2) = 1, so the range is [2 - 3, 2 + 3].
    scores, absent = three_sigma([3.0, 2.0, 1.0])
    assert scores == pytest.approx([(3 - (2 - 3)) / 6, (2 - (2 - 3)) / 6, (1 - (2 - 3)) / 6])
    assert absent == 0.0


def test_three_sigma_clips_outliers_to_one():
    # ten 0s and one 1: mean 1/11, sample std sqrt(1/11); 1 lies above mean + 3 std.
    mean, std = 1 / 11, math.sqrt(1 / 11)
    scores, _ = three_sigma([1.0] + [0.0] * 10)
    assert mean + 3 * std < 1
    assert scores[0] == 1.0
    assert scores[1:] == pytest.approx([(0 - (mean - 3 * std)) / (6 * std)] * 10)


@pytest.mark.parametrize("scores", [[2.0, 2.0], [2.0]])
def test_three_sigma_with_std_zero_is_one_half(scores):
    assert three_sigma(scores) == ([0.5] * len(scores), 0.0)


@pytest.mark.parametrize("normalize", [minmax, zscore, three_sigma])
def test_an_empty_leg_normalises_to_nothing(normalize):
    assert normalize([]) == ([], 0.0)


def test_equal_scores_have_exactly_zero_std_despite_rounding():
    assert mean_std([0.1] * 3, ddof=0)[1] == 0.0
    assert mean_std([0.1] * 3, ddof=1)[1] == 0.0


def test_registry_holds_every_normalization():
    assert list(NORMALIZERS) == list(Normalization)
    assert (NORMALIZERS[Normalization.MINMAX], NORMALIZERS[Normalization.ZSCORE]) == (minmax, zscore)
