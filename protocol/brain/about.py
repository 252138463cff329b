"""Who the brain is: its ABOUT answer and the greeting a person at a terminal sees first.

Import-light on purpose: the greeting is printed before the engine (numba) is loaded.
"""

NAME, VERSION = "Sente", "0.1.0"
# (no www field: the project has no page of its own, and PyPI's "sente" is another project)
ABOUT = (f'name="{NAME}", version="{VERSION}", author="The Sente developers", '
         'country="International"')
GREETING = (f"MESSAGE {NAME} {VERSION}, a Gomoku/Renju brain that speaks the Gomocup protocol. "
            "Try: START 15, then BEGIN (it plays first) or TURN 7,7 (you play first); END "
            "quits. The first start after installing compiles the engine (up to 20 s). For a "
            "demo match between two engines run: sente-match --selfplay '' '' --games 2")
