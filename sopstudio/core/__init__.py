"""Pure-Python core: the SOP model, expressions, validation, edits, layout and journeys.

Nothing in this package imports Qt (see tests/test_layering.py).
"""
