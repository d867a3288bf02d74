"""The core's vocabulary: table events, commands, derived events, state, money, RFC 3339 times
(`instants`), cards, games, views and the one exception tree (`errors`). Imports nothing else of
the project.
"""
