"""processor layer."""
