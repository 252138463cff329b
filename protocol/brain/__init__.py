"""The brain: read a protocol line, call the Engine, print the answer (``pbrain-sente``).

It depends on ``bot`` only, never on ``protocol.arena``: it is what the frozen executable carries.
"""
