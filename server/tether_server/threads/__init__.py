"""threads layer."""
