"""Players: the Agent interface and the bots, which see only what their player may see.

Imports only the rules core.
"""

from engine.players.bots import Agent, HeuristicBot, PlayerView, RandomBot

__all__ = ["Agent", "PlayerView", "RandomBot", "HeuristicBot"]
