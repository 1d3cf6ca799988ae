"""tests/kernel/guest runs only inside the gpio-sim guest (``make test-gpio``,
tests/kernel/run.sh, which sets UNO_GPIO_SIM=1): it needs a kernel GPIO chip
that only exists there. Everywhere else pytest does not collect it."""

import os

collect_ignore_glob = [] if os.environ.get("UNO_GPIO_SIM") == "1" else ["guest/*"]
