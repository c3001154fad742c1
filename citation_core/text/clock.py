"""Video positions as people read them."""

from __future__ import annotations

import math


def clock(second: float) -> str:
    """A video position as people read it, the same as the chips show it: "2:05", "1:02:05" from an hour on.

    Fractions are dropped; a negative or non-finite position gives "".
    """
    if not math.isfinite(second) or second < 0:
        return ""
    s = int(second)
    hours, minutes, seconds = s // 3600, s // 60 % 60, s % 60
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
