"""Match statistics from game pairs (each opening played once with each colour).

A pair scores 0, 0.5, 1, 1.5 or 2 points for the first engine (the pentanomial distribution);
pairs, not games, are the independent samples, which removes most of the opening's colour bias
from the error bar.  SPRT uses the normal approximation of the generalised likelihood ratio on
pair scores (as used by chess testing frameworks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


def elo_from_score(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class Estimate:
    pairs: int
    pentanomial: tuple[int, int, int, int, int]  # pairs scoring 0, 0.5, 1, 1.5, 2 points
    score: float  # mean points per game for the first engine
    elo: float
    elo_low: float  # 95% interval
    elo_high: float
    los: float  # likelihood of superiority of the first engine


def pentanomial(pair_points: list[float]) -> tuple[int, int, int, int, int]:
    counts = [0] * 5
    for points in pair_points:
        counts[int(round(points * 2))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _mean_variance(pair_points: list[float]) -> tuple[float, float]:
    n = len(pair_points)
    scores = [p / 2.0 for p in pair_points]  # per-game score of each pair, in [0, 1]
    mean = sum(scores) / n
    variance = sum((s - mean) ** 2 for s in scores) / n
    return mean, variance


def estimate(pair_points: list[float]) -> Estimate | None:
    """Elo of the first engine with a 95% interval and LOS; None without any pair."""
    if not pair_points:
        return None
    n = len(pair_points)
    mean, variance = _mean_variance(pair_points)
    error = math.sqrt(variance / n) if n > 1 else 0.5
    z = NormalDist().inv_cdf(0.975)
    low, high = mean - z * error, mean + z * error
    los = NormalDist().cdf((mean - 0.5) / error) if error > 0 else float(mean > 0.5)
    return Estimate(n, pentanomial(pair_points), mean, elo_from_score(mean),
                    elo_from_score(low), elo_from_score(high), los)


# The SPRT decides nothing before this many pairs, and counts half a pair of each of the five
# outcomes besides the real ones: a handful of equal pairs (zero variance) would otherwise give
# an absurd likelihood ratio and stop the test at once.
MIN_SPRT_PAIRS = 20
PRIOR_PAIRS = 0.5


def _regularised_mean_variance(pair_points: list[float]) -> tuple[float, float]:
    counts = [c + PRIOR_PAIRS for c in pentanomial(pair_points)]
    total = sum(counts)
    scores = [i / 4.0 for i in range(5)]  # per-game score of a pair with i half-points
    mean = sum(c * s for c, s in zip(counts, scores)) / total
    variance = sum(c * (s - mean) ** 2 for c, s in zip(counts, scores)) / total
    return mean, variance


@dataclass(frozen=True)
class Sprt:
    """H0: elo <= elo0 against H1: elo >= elo1, with error rates alpha and beta."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, pair_points: list[float]) -> float:
        """Log-likelihood ratio of H1 to H0 (normal approximation on pair scores); 0 before
        MIN_SPRT_PAIRS pairs."""
        if len(pair_points) < MIN_SPRT_PAIRS:
            return 0.0
        mean, variance = _regularised_mean_variance(pair_points)
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return len(pair_points) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def decision(self, pair_points: list[float]) -> str | None:
        """'H1' (the change is good), 'H0' (it is not) or None (play on)."""
        llr = self.llr(pair_points)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None
