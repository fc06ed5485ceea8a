"""The pure parts of the rate limiter: the script's reply and Retry-After rounding."""

from __future__ import annotations

import pytest

from search_platform.auth.rate_limit import RateLimitResult, retry_after_seconds, to_result


@pytest.mark.parametrize(("ms", "seconds"), [(0, 1), (1, 1), (999, 1), (1000, 1), (1001, 2), (59_999, 60)])
def test_retry_after_rounds_up_to_whole_seconds(ms, seconds):
    assert retry_after_seconds(ms) == seconds


def test_an_allowed_reply():
    assert to_result([1, 4, 0], limit=5) == RateLimitResult(allowed=True, limit=5, remaining=4, retry_after_s=0)


def test_a_refused_reply_says_when_to_retry():
    assert to_result([0, 0, 12_345], limit=5) == RateLimitResult(allowed=False, limit=5, remaining=0,
                                                                 retry_after_s=13)
