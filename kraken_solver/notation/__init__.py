"""Reading and writing: deal files (PBN tag pairs and one-line deals, hidden hands included),
the text, JSON and CSV of the reports, the files the tools write (atomic, never over an input)
and what every plot shares.
"""
