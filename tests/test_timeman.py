"""Turn budgets."""

from bot.limits import Limits
from bot.timeman import budget


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


def test_another_iteration_starts_only_if_it_should_end_within_the_maximum() -> None:
    from bot.timeman import Budget, next_iteration_fits

    b = Budget(optimum_ms=450.0, maximum_ms=1000.0)
    assert next_iteration_fits(b, 100.0, [5.0])  # one iteration timed: the optimum decides
    assert not next_iteration_fits(b, 500.0, [5.0])
    # the last iteration took 3x the one before: the next is expected to take 3x again
    assert next_iteration_fits(b, 300.0, [50.0, 150.0])  # 300 + 450 <= 1000
    assert not next_iteration_fits(b, 600.0, [50.0, 150.0])  # 600 + 450 > 1000
    # growth is clamped: at least 1.5x, at most 8x
    assert next_iteration_fits(b, 700.0, [300.0, 200.0])  # 700 + 1.5 * 200 = 1000
    assert not next_iteration_fits(b, 701.0, [300.0, 200.0])
    assert next_iteration_fits(b, 200.0, [1.0, 100.0])  # 200 + 8 * 100 = 1000
    assert not next_iteration_fits(b, 201.0, [1.0, 100.0])
