"""The analyst team: research over a corpus with two kinds of worker, passages from its text
files (``search``) and rows from its CSV files (``table``)."""
