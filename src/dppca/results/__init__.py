"""The result of the whole pipeline, its JSON form and its uncertainty (post-processing only)."""
