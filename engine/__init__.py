"""The UNO rules engine (classic and Showdown), bots and the unit protocol client."""

__all__: list[str] = []
