"""Bad input (issue 7): a corpus of hostile table events, thrown at each door events come in by."""
