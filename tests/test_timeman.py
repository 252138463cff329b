"""Turn budgets."""

from bot.limits import Limits
from bot.timeman import Pacing, budget


def test_turn_limit_with_margin() -> None:
    b = budget(Limits(timeout_turn_ms=5000))
    assert 4000 < b.maximum_ms < 5000 and b.optimum_ms < b.maximum_ms


def test_time_left_is_trusted_over_the_match_limit() -> None:
    b = budget(Limits(timeout_turn_ms=30000, timeout_match_ms=180000, time_left_ms=2000))
    assert b.maximum_ms < 200


def test_startup_is_paid_by_the_first_move() -> None:
    plain = budget(Limits(timeout_turn_ms=5000))
    first = budget(Limits(timeout_turn_ms=5000, startup_ms=1500))
    assert abs(plain.maximum_ms - first.maximum_ms - 1500) < 1e-6


def test_zero_turn_limit_plays_fast_and_negative_time_left_still_moves() -> None:
    assert budget(Limits(timeout_turn_ms=0)).maximum_ms < 100
    assert budget(Limits(timeout_turn_ms=5000, time_left_ms=-300)).maximum_ms >= 5


def test_match_time_without_time_left() -> None:
    b = budget(Limits(timeout_turn_ms=0 + 30000, timeout_match_ms=100000))
    assert b.maximum_ms <= 100000 / 25



def test_pacing_gives_unsettled_searches_more_time_and_settled_ones_less() -> None:
    b = budget(Limits(timeout_turn_ms=5000))
    settled, unsettled = Pacing(b), Pacing(b)
    for depth in range(6):
        settled.update(10, 100 + depth)
        unsettled.update(10 + depth % 2, 100 - 200 * depth)
    assert settled.optimum_ms < b.optimum_ms < unsettled.optimum_ms <= b.maximum_ms


def test_a_settled_search_regains_time_after_a_change() -> None:
    b = budget(Limits(timeout_turn_ms=5000))
    pacing = Pacing(b)
    pacing.update(1, 0)
    pacing.update(2, 0)
    changed = pacing.optimum_ms
    for _ in range(5):
        pacing.update(2, 0)
    assert pacing.optimum_ms < changed
