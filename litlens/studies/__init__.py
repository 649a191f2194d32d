"""Annotation studies: proxy tasks, Likert ratings, agreement statistics."""
