"""The rules of the game, with no search: cards and seats, deals, the rule options and presets,
roem, a deal in play (legal cards, tricks) and the score sheet of a line (RULES.md).
"""
