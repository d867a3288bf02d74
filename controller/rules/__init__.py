"""The rules of the games as the table stage applies them: the table decider (`table`), checks of a
round's wagers, decisions and cards (`round_checks`), settlement in the rules' order
(`settlement`), forming the judged hand (`hand_forming`) and the hand rankings (`hands`).
Imports `controller.model` and `controller.config`.
"""
