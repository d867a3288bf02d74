"""Reconciliation of every meter over a period: a pure fold over the log (`report`), one meter's
ledger (`ledger`), checks of single events (`checks`), the report's findings and notes on the
period as a whole (`summary`), the period and report types (`period`) and their JSON/CSV views
(`view`). Imports the rest of the core, never the edge.
"""
