"""Poker hand rankings for each game's paytables: three-card, four-card, five-card, colour.
Imports `controller.model.cards` only.
"""
