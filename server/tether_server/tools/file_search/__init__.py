"""Fuzzy file search for `@` mentions: list a tree honouring `.gitignore`, then rank paths."""
