"""A probe for issue 14 (see __main__): a native hot path measured, not product code."""
