"""The built-in games, registered through the same hook as third-party games."""
