"""Intervals for the harness's figures: Wilson for proportions, a seeded bootstrap for means and
for ratios of sums (row F1, whose units are turns)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Interval", "bootstrap_mean", "bootstrap_ratio", "wilson"]

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate and its interval; NaN throughout when there is nothing to estimate from."""

    estimate: float
    low: float
    high: float

    def covers(self, value: float) -> bool:
        """True when `value` lies within the interval (ends included)."""
        return self.low <= value <= self.high


def wilson(successes: int, trials: int, z: float = Z95) -> Interval:
    """The Wilson score interval of `successes` out of `trials` (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is sound at 0 and n successes.
    """
    if trials <= 0:
        return Interval(math.nan, math.nan, math.nan)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and trials ({trials}); found {successes}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(p, low, high)


def bootstrap_mean(
    values: Sequence[float], *, seed: int = 0, resamples: int = 2000, level: float = 0.95
) -> Interval:
    """The mean of `values` with a percentile bootstrap interval, seeded so it repeats exactly.

    NaN values are left out; with no value left the interval is NaN, with one it is that value.
    """
    data = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    if data.size == 0:
        return Interval(math.nan, math.nan, math.nan)
    mean = float(data.mean())
    if data.size == 1:
        return Interval(mean, mean, mean)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Interval(mean, float(low), float(high))


def bootstrap_ratio(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    seed: int = 0,
    resamples: int = 2000,
    level: float = 0.95,
) -> Interval:
    """sum(numerators) / sum(denominators) with a percentile bootstrap over the units, seeded.

    Each unit (a turn, say) is drawn whole with its numerator and denominator, so a ratio pooled
    over units, such as an F1 of `2tp / (2tp + fp + fn)`, keeps the units' own spread. A resample
    whose denominators sum to 0 has no ratio and is left out. NaN throughout when the
    denominators sum to 0; the ratio itself when there is one unit.
    """
    top = np.asarray(numerators, dtype=float)
    bottom = np.asarray(denominators, dtype=float)
    if top.shape != bottom.shape:
        raise ValueError(
            f"numerators and denominators must pair up; found {top.size} and {bottom.size}"
        )
    if bottom.sum() <= 0:
        return Interval(math.nan, math.nan, math.nan)
    ratio = float(top.sum() / bottom.sum())
    if top.size == 1:
        return Interval(ratio, ratio, ratio)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, top.size, size=(resamples, top.size))
    tops, bottoms = top[drawn].sum(axis=1), bottom[drawn].sum(axis=1)
    ratios = tops[bottoms > 0] / bottoms[bottoms > 0]
    tail = (1 - level) / 2
    low, high = np.quantile(ratios, [tail, 1 - tail])
    return Interval(ratio, float(low), float(high))
