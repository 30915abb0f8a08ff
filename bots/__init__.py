"""The built-in bots, registered through the same hook as third-party bots."""
