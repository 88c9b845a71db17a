"""The supervisor app: the `App`, its controllers, its key table, settings and messages."""
