"""Domain errors of the public wrappers; each is a ValueError so callers can answer `ERROR ...`."""


class BoardError(ValueError):
    """Base class: a request the board cannot honour; the state is left unchanged."""


class SizeError(BoardError):
    """Unsupported board dimensions."""


class RuleError(BoardError):
    """Unknown or contradictory rule bits."""


class CoordinateError(BoardError):
    """A coordinate off the board."""


class OccupiedError(BoardError):
    """A stone on a cell that is not empty, or removal from an empty cell."""


class HistoryError(BoardError):
    """Undo with no move to undo, or a board that cannot hold more moves."""
