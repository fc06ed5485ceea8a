"""Where the lines of formatted text end: the right margin of justified text, and whether the text is justified."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

MIN_MARGIN_LINES = 3  # lines that end at one column before it counts as the right margin of justified text
MIN_MARGIN_COLUMN = 60  # a justified page is wider than this (man(1) prints 80 columns); a table row is no margin
NEAR_MARGIN_COLUMNS = 10  # a filled line of ragged text ends this close to its margin
MIN_JUSTIFIED_SHARE = 0.5  # of the lines that end near the margin, the share a justifying formatter ends on it


def right_margin(lines: Sequence[str]) -> int | None:
    """The column where the lines of justified text end (the commonest line end, if wide and common enough)."""
    ends = Counter(len(line.rstrip()) for line in lines if line.strip())
    margins = [end for end, count in ends.most_common(1) if count >= MIN_MARGIN_LINES and end >= MIN_MARGIN_COLUMN]
    return margins[0] if margins else None


def is_justified(lines: Sequence[str], margin: int) -> bool:
    """Whether the text was justified to margin: a justifying formatter (man(1)) ends every full line on it, while
    ragged text (a wrapped file, an info manual) ends its full lines anywhere in the last columns before it."""
    ends = [len(line.rstrip()) for line in lines if line.strip()]
    near = [end for end in ends if margin - NEAR_MARGIN_COLUMNS <= end <= margin]
    return bool(near) and near.count(margin) >= MIN_JUSTIFIED_SHARE * len(near)
