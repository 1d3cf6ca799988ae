"""A scripted person at the terminal game's one screen: its input and a
transcript of all it was shown (tests/test_engine_play.py, tests/test_uno_terminal_menu.py)."""

import re

__all__ = ["Script"]


class Script:
    """Scripted input and a transcript of everything shown (prompts included,
    and ``<private>``/``<public>`` where the screen switches).

    ``answers`` are (prompt prefix, reply) pairs, used in order for prompts that
    start with the prefix; a reply that is an exception class is raised. Other
    prompts get a default reply: Enter, the first menu entry, green, 3 cards,
    the challenger winning.
    """

    def __init__(self, *answers):
        self.answers = list(answers)
        self.lines = []

    def print(self, text=""):
        self.lines.append(text)

    def control(self, what):
        self.lines.append(f"<{what}>")

    def input(self, prompt):
        self.lines.append(prompt)
        for i, (prefix, reply) in enumerate(self.answers):
            if prompt.startswith(prefix):
                del self.answers[i]
                if isinstance(reply, type) and issubclass(reply, BaseException):
                    raise reply
                return reply
        if prompt.startswith("Your choice"):
            return "1"
        if prompt.startswith("Colour"):
            return "g"
        if prompt.startswith("How many"):
            return "3"
        if "Who won?" in prompt:
            return re.search(r"Who won\? \((.+?) or ", prompt).group(1)
        return ""

    @property
    def text(self):
        return "\n".join(self.lines)
