"""The manager side: drive brain processes, referee games, run matches, keep records, rate.

It may use ``bot.core`` as its referee, never ``protocol.brain``.
"""
