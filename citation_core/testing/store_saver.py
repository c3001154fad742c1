"""Kill a process while it saves turns: what a store must survive (``python -m citation_core.testing.store_saver
TARGET`` is that process).

The process opens the store at TARGET (a path or a URL, as ``LmsStore`` takes it) and saves turns in a loop,
every third one starting a new conversation, each with a long question and a longer answer; it prints
"saving" once the first turn is stored. :func:`kill_while_saving` starts it again and again and kills it
with SIGKILL at a random moment of its loop; the store must then hold whole turns only.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path


def save_forever(target: str) -> None:
    from ..lms.store import LmsStore

    store = LmsStore(target)
    conversation = None
    n = 0
    while True:
        turn = store.save_turn("key", conversation, f"question {n} " + "q" * 2000, f"answer {n} " + "a" * 20000,
                               course_id=1, unit_id=101, title=f"question {n}")
        conversation = None if n % 3 == 2 else turn.conversation_id
        n += 1
        if n == 1:
            print("saving", flush=True)


def kill_while_saving(target: str | Path, kills: int, seed: int, cwd: Path | None = None) -> None:
    """``kills`` times: a saving process started, killed with SIGKILL up to 50 ms after its first turn."""
    rng = random.Random(seed)
    for _ in range(kills):
        proc = subprocess.Popen([sys.executable, "-m", __name__, str(target)], cwd=cwd, stdout=subprocess.PIPE)
        try:
            assert proc.stdout is not None and proc.stdout.readline() == b"saving\n"
            time.sleep(rng.uniform(0.0, 0.05))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL


if __name__ == "__main__":
    save_forever(sys.argv[1])
