"""The Showdown unit daemon: state machine, protocol server, config, journal."""

__all__: list[str] = []
