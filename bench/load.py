"""N learners asking at once, against a SQLite file and a PostgreSQL server side by side
(``python -m bench.load``).

Each simulated user runs ``--turns`` realistic turns one after another, as the app does for one browser
session: the offline chat pipeline on the sample course (retrieval, the writer, both citation passes,
the support audit), then ``store_answer`` (versions stamped, the whole turn written in one transaction),
the first turn opening a conversation and the next ones adding to it, and after each turn the
conversation is read back as the history view does. Users are threads of one process, sharing one
``LmsStore`` and one pipeline per store, as the sessions of one app process do. For N = 1, 10 and 50
users (``--users``), the two stores take turns: one run on SQLite, then one on PostgreSQL (a server the
benchmark starts itself with ``citation_core.testing.postgres``), each on a fresh database.

Reported per store and N: turns per second (all turns / wall time), p50 and p95 seconds per turn (the
pipeline and the store; the pipeline dominates), errors (a turn that raised), and lost or partial turns:
after the run every user's conversation must hold exactly its questions and answers, in order, each
answer the one that user's turn produced. Exit status 1 when a turn is lost, partial or failed.

``--kill K`` also kills K processes with SIGKILL while they save turns on PostgreSQL and then checks that
no conversation is left without its messages and no question without its answer.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = (
    "How does the merge step combine two sorted halves?",
    "Why is merge sort O(n log n)?",
    "What happens on a hash collision?",
    "How does chaining resolve collisions?",
    "What is the load factor of a hash table?",
    "How do you insert into a binary search tree?",
)


@dataclass
class Outcome:
    seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    expected: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # user -> [(question, answer)]
    conversations: dict[str, int] = field(default_factory=dict)


def run(target: str, users: int, turns: int) -> tuple[Outcome, float, list[str]]:
    """``users`` threads of ``turns`` turns each on the store at ``target``; the outcome, the wall time and
    what is wrong with the stored conversations afterwards (lost or partial turns)."""
    from citation_core.chat.view import ViewPosition
    from citation_core.llm.config import default_config
    from citation_core.lms.store import LmsStore
    from citation_core.material.library import load_material
    from studio.services import chat_pipeline, store_answer

    material = load_material(ROOT / "sample_decks")
    store = LmsStore(target)
    pipeline = chat_pipeline(default_config(), material)
    units = sorted(material.units)
    pipeline(QUESTIONS[0], ViewPosition(units[0], page=1))  # warm: the meaning model and caches load once
    outcome = Outcome()
    lock = threading.Lock()
    start_all = threading.Barrier(users)

    def user(n: int) -> None:
        rng = random.Random(n)
        key = f"load-user-{n:03d}"
        conversation: int | None = None
        start_all.wait()
        for _ in range(turns):
            unit = rng.choice(units)
            question = rng.choice(QUESTIONS)
            started = time.perf_counter()
            try:
                result = pipeline(question, ViewPosition(unit, page=1))
                saved = store_answer(store, material, key, conversation, unit, result, {"page": 1})
                conversation, stored = saved.conversation_id, saved.answer
                store.messages(conversation)  # the history view reads it back
            except Exception as exc:  # noqa: BLE001  (counted and reported: the benchmark's subject)
                with lock:
                    outcome.errors.append(f"{key}: {type(exc).__name__}: {exc}")
                continue
            with lock:
                outcome.seconds.append(time.perf_counter() - started)
                outcome.expected.setdefault(key, []).append((question, stored))
                outcome.conversations[key] = conversation

    threads = [threading.Thread(target=user, args=(n,)) for n in range(users)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    problems: list[str] = []
    for key, pairs in outcome.expected.items():
        stored = [(m.role, m.content) for m in store.messages(outcome.conversations[key])]
        wanted = [item for question, answer in pairs for item in (("user", question), ("assistant", answer))]
        if stored != wanted:
            problems.append(f"{key}: {len(stored)} messages stored, {len(wanted)} written")
    if len(store.conversations()) != len(outcome.expected):
        problems.append(f"{len(store.conversations())} conversations stored for {len(outcome.expected)} users")
    store.close()
    return outcome, wall, problems


def kill_while_saving(target: str, kills: int) -> list[str]:
    """Processes saving turns, killed with SIGKILL at random moments; what is half-written afterwards."""
    import sqlalchemy as sa

    from citation_core.lms.store import LmsStore
    from citation_core.testing.store_saver import kill_while_saving as kill

    LmsStore(target).close()
    kill(target, kills, seed=7, cwd=ROOT)
    engine = sa.create_engine(LmsStore(target).location.url)
    with engine.connect() as db:
        empty = db.exec_driver_sql("SELECT count(*) FROM conversations c WHERE NOT EXISTS "
                                   "(SELECT 1 FROM messages m WHERE m.conversation_id = c.id)").scalar()
        odd = db.exec_driver_sql("SELECT count(*) FROM (SELECT conversation_id FROM messages GROUP BY "
                                 "conversation_id HAVING mod(count(*), 2) = 1) AS x").scalar()
        turns = db.exec_driver_sql("SELECT count(*) FROM messages").scalar()
    engine.dispose()
    found = []
    if empty:
        found.append(f"{empty} conversations without messages")
    if odd:
        found.append(f"{odd} conversations with a question but no answer")
    print(f"killed {kills} saving processes: {int(turns or 0) // 2} whole turns stored, "
          f"{'; '.join(found) or 'nothing half-written'}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", default="1,10,50", help="comma-separated numbers of users")
    parser.add_argument("--turns", type=int, default=3, help="turns per user")
    parser.add_argument("--kill", type=int, default=0, help="processes to kill while saving (PostgreSQL)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from citation_core.testing.postgres import running_postgres

    counts = [int(n) for n in args.users.split(",") if n.strip()]
    rows: list[str] = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp, running_postgres() as server:
        stores: dict[str, Callable[[str], str]] = {
            "SQLite": lambda name: f"sqlite:///{tmp}/{name}.sqlite3",
            "PostgreSQL": server.new_database,
        }
        for users in counts:
            for label, make in stores.items():
                outcome, wall, problems = run(make(f"load{users}"), users, args.turns)
                done = len(outcome.seconds)
                ordered = sorted(outcome.seconds)
                p50 = statistics.median(ordered) if ordered else float("nan")
                p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")
                rows.append(f"| {label} | {users} | {done} | {done / wall:.2f} | {p50:.2f} | {p95:.2f} "
                            f"| {len(outcome.errors)} | {len(problems)} |")
                for line in outcome.errors[:3] + problems[:3]:
                    print(f"  {label}, {users} users: {line}", file=sys.stderr)
                failed |= bool(outcome.errors or problems)
        print(f"{args.turns} turns per user, offline model, sample course\n")
        print("| store | users | turns | turns/s | p50 s/turn | p95 s/turn | errors | lost or partial |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(rows))
        if args.kill:
            failed |= bool(kill_while_saving(server.new_database("killed"), args.kill))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
