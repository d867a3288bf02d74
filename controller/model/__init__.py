"""The core's vocabulary: table events, commands, derived events, state, money, cards, games,
views and the one exception tree (`errors`). Imports nothing else of the project.
"""
