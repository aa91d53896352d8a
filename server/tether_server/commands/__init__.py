"""`tether` subcommands other than `app-server`: login, logout, doctor."""
