"""Both ends of the Gomocup protocol: ``brain`` speaks it, ``arena`` drives brains that do."""
