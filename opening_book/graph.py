"""The graph store: an SQLite database of the strategy graph, safe to interrupt and resume.

Vertices are positions with the attacker to move, keyed by the canonical key (keys.py), stored
as signed 64-bit integers.  A vertex is

- ``open``: not yet worked on (or worked on without a move chosen);
- ``expanded``: the attacker's move is chosen, and every defender reply either ends in a win by
  continuous threats (counted in ``threat_longest``) or leads to a child vertex (a ``reply``
  row); it is proved when every child is;
- ``proved``: won within the budget; ``longest`` is the number of stones on the board at the end
  of the longest line below it; a vertex proved with no reply rows is won by the threat search
  alone (its ``move`` is that search's first move);
- ``failed``: no win was found within the budget from here: every parent that chose the move
  leading here is opened again with that move in its ``excluded`` list, so the builder tries
  another (and a parent with no move left fails in turn).

Vertices no longer reached from the root (the replies to a move given up) are removed, except
proved ones, which may be reached again by transposition.  Every write happens in a
transaction, so an interrupted build loses at most the batch being written.  ``meta`` holds the
build's settings (rule, size, budget, attacker, root) and the most df-pn nodes a leaf of its
proofs was closed with (``leaf_dfpn_nodes``: what the verifier gives its own); ``reproof`` the
export's answers, per proved vertex, to whether a small proof search proves it from scratch
(``export``); ``replayed`` what the build's last replay of each parent vertex (or of an open
vertex by its cousins) was given, which the next build's replays skip when it is unchanged
(none for the vertices proved or gone since: no replay looks them up again).
"""

from __future__ import annotations

import sqlite3
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from opening_book.book import HEADER, MAGIC, Reproof
from opening_book.positions import position_board

# The most df-pn nodes at the prover's leaves of any build from before graphs kept the figure.
LEGACY_LEAF_DFPN_NODES = 20_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vertex (
    key INTEGER PRIMARY KEY,
    moves TEXT NOT NULL,
    stones INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'expanded', 'proved', 'failed')),
    move INTEGER,
    longest INTEGER,
    threat_longest INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    proof_nodes INTEGER NOT NULL DEFAULT 0,
    excluded TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS vertex_status ON vertex (status, stones);
CREATE TABLE IF NOT EXISTS reply (
    parent INTEGER NOT NULL,
    child INTEGER NOT NULL,
    PRIMARY KEY (parent, child)
);
CREATE INDEX IF NOT EXISTS reply_child ON reply (child);
CREATE TABLE IF NOT EXISTS reproof (
    key INTEGER PRIMARY KEY,
    proof_nodes INTEGER NOT NULL,
    threat_nodes INTEGER NOT NULL,
    proved INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS replayed (
    key INTEGER PRIMARY KEY,
    targets TEXT NOT NULL,
    guides TEXT NOT NULL
);
"""


def signed(key: int) -> int:
    """An unsigned 64-bit key as SQLite's signed integer."""
    return key - (1 << 64) if key >= 1 << 63 else key


def unsigned(key: int) -> int:
    return key + (1 << 64) if key < 0 else key


# What a replay was given at a vertex (a parent, or a cousins' target): its targets' keys and
# its guides' lines (``builder.replay``'s ``replayed``, kept by ``Graph.remember_replays``).
Replayed = tuple[frozenset[int], tuple[str, ...]]

# How long a write waits for another connection's reads (or writes) to end before it fails:
# a build writes each job as it ends while `stats`, `export` or a script may read the same
# file, and a scan of a large graph holds its read lock for seconds (SQLite's 5 s default
# crashed a build in session 71).  Longer rides out longer readers; a build stays stalled
# that long behind one that never ends.
BUSY_SECONDS = 600.0
PROVED_AMONG_BATCH = 500  # keys per query (Graph.proved_among), under SQLite's 999 parameters
REPROOF_BATCH = 256  # reproofs checked per transaction (Graph.reproved): a unit of progress


@dataclass
class Vertex:
    key: int  # canonical key (unsigned)
    moves: str  # a move list that reaches the position
    stones: int
    status: str
    move: int | None  # attacker's move in the canonical frame
    longest: int | None
    threat_longest: int
    attempts: int
    proof_nodes: int
    excluded: str = ""  # attacker moves (canonical cells, comma-separated) that failed here

    def excluded_cells(self) -> list[int]:
        return [int(cell) for cell in self.excluded.split(",") if cell]


class Graph:
    """The database at ``path`` (created with ``settings`` when new)."""

    def __init__(self, path: str | Path, settings: dict[str, str] | None = None) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
        self.db.executescript(SCHEMA)
        if settings:
            new = self.db.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0
            with self.db:
                if new:
                    self.db.execute("INSERT INTO meta VALUES ('leaf_dfpn_nodes', '0')")
                for name, value in settings.items():
                    self.db.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (name, value))

    def close(self) -> None:
        self.db.close()

    def setting(self, name: str) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise KeyError(f"{self.path} has no setting {name!r}")
        return str(row[0])

    def core_seconds(self) -> float:
        """Computation spent building the graph: wall-clock seconds times worker processes."""
        row = self.db.execute("SELECT value FROM meta WHERE name = 'core_seconds'").fetchone()
        return float(row[0]) if row else 0.0

    def add_core_seconds(self, seconds: float) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('core_seconds', ?)",
                        (f"{self.core_seconds() + seconds:.3f}",))

    def leaf_dfpn_nodes(self) -> int:
        """The most nodes of the df-pn a prover leaf of this graph was closed with: a search
        with as many finds the same win again (a graph from before the figure was kept:
        LEGACY_LEAF_DFPN_NODES)."""
        row = self.db.execute("SELECT value FROM meta WHERE name = 'leaf_dfpn_nodes'").fetchone()
        return int(row[0]) if row else LEGACY_LEAF_DFPN_NODES

    def record_leaf_dfpn_nodes(self, nodes: int) -> None:
        """Proofs with the df-pn of ``nodes`` nodes at their leaves are about to be written:
        the graph's figure becomes the larger of the two."""
        most = max(nodes, self.leaf_dfpn_nodes())
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('leaf_dfpn_nodes', ?)",
                            (str(most),))

    # --- reading ---------------------------------------------------------------------------
    def vertex(self, key: int) -> Vertex | None:
        row = self.db.execute("SELECT * FROM vertex WHERE key = ?", (signed(key),)).fetchone()
        return None if row is None else _vertex(row)

    def vertices(self, status: str | None = None) -> Iterator[Vertex]:
        query = "SELECT * FROM vertex" + (" WHERE status = ?" if status else "")
        for row in self.db.execute(query, (status,) if status else ()):
            yield _vertex(row)

    def proved_among(self, keys: Iterable[int]) -> list[Vertex]:
        """The proved vertices among the canonical keys ``keys`` (unsigned)."""
        signed_keys = [signed(key) for key in keys]
        found = []
        for start in range(0, len(signed_keys), PROVED_AMONG_BATCH):
            batch = signed_keys[start:start + PROVED_AMONG_BATCH]
            # by key: a plain `status = 'proved'` (no +) lets SQLite search the status index,
            # through every proved vertex, most of the graph (session 79, on the graph of
            # record: 137 ms a position against 2-3 ms, about 6 minutes of each round's replay)
            found += [_vertex(row) for row in self.db.execute(
                f"SELECT * FROM vertex WHERE key IN ({','.join('?' * len(batch))})"
                " AND +status = 'proved'", batch)]
        return found

    def open_branches(self, branch_moves: int = 0, only: Sequence[str] = ()
                      ) -> Iterator[list[Vertex]]:
        """The open vertices to work on, branch by branch in the order they are built, each
        branch's list read only when the one before it has been taken (a build mostly needs
        the first).  A *branch* is what is reached through the replies from a vertex of
        ``branch_moves`` stones (from the empty board: 2, one branch per reply to the first
        move); branches are finished one at a time, in ``branch_order``, and in a branch the
        most stones come first: one line is followed down until it is proved or fails, so
        proofs (and failures, which send the parent to another move) come early.  Among as
        many stones, the most tried first: a vertex whose moves keep failing fails soonest
        that way (``BuildSettings.give_up_after``), and with it the move above, instead of each
        of its 200-odd siblings being tried once, then each again.  Open vertices above the
        branches (fewer stones) come first, all in one list; ``branch_moves`` 0: the whole
        graph is one branch.  ``only``: the open vertices below these vertices alone (lines as
        the graph spells them: of ``branch_moves`` moves, or deeper, to work on one hard reply
        with what was built below it), in the order given instead of ``branch_order``.  A vertex
        shared by transposition comes in the first branch that reaches it."""
        if not branch_moves:
            rows = [_vertex(row) for row in self.db.execute(
                f"SELECT * FROM vertex WHERE status = 'open' {_DEEPEST_FIRST}")]
            if rows:
                yield rows
            return
        above = [_vertex(row) for row in self.db.execute(
            f"SELECT * FROM vertex WHERE status = 'open' AND stones < ? {_DEEPEST_FIRST}",
            (branch_moves,))]
        if above:
            yield above
        unproved = "SELECT moves, key FROM vertex WHERE status IN ('open', 'expanded', 'failed')"
        if only:  # the lines asked for, at any depth
            found = self.db.execute(f"{unproved} AND moves IN ({', '.join('?' * len(only))})",
                                    list(only))
        else:  # every reply to the root's move
            found = self.db.execute(f"{unproved} AND stones = ?", (branch_moves,))
        roots = dict(found.fetchall())  # the branches not proved: line -> key
        seen: set[int] = set()
        for line in [line for line in only if line in roots] if only else sorted(
                roots, key=branch_order):
            rows = [vertex for vertex in self._open_below(roots[line]) if vertex.key not in seen]
            seen.update(vertex.key for vertex in rows)
            if rows:
                yield rows

    def _open_below(self, key: int) -> list[Vertex]:
        """The open vertices reached from the vertex ``key`` (signed) through the replies of
        expanded vertices (it included), the most stones first (``open_branches``)."""
        return [_vertex(row) for row in self.db.execute(
            _REACHED_THROUGH_EXPANDED + " SELECT * FROM vertex WHERE status = 'open'"
            " AND key IN (SELECT key FROM below) " + _DEEPEST_FIRST, (key,))]

    def reached_from(self, lines: Sequence[str]) -> set[int]:
        """The keys (unsigned) of the vertices reached from the vertices spelt ``lines`` (as
        the graph spells them, like ``open_branches``'s ``only``) through the replies of
        expanded vertices, those included: what a build given these branches works on, the
        vertices they reach by transposition too."""
        found = self.db.execute(
            f"SELECT key FROM vertex WHERE moves IN ({', '.join('?' * len(lines))})", list(lines))
        return {unsigned(reached) for key, in found.fetchall() for reached, in self.db.execute(
            _REACHED_THROUGH_EXPANDED + " SELECT key FROM below", (key,))}

    def widest_below(self, key: int, limit: int) -> list[tuple[Vertex, dict[str, int]]]:
        """The ``limit`` expanded vertices reached from the vertex ``key`` (unsigned), it
        included, with the most replies open, and their replies counted by status: where a
        quiet move left a full-width level, the work left below a line."""
        rows = self.db.execute(
            _REACHED_THROUGH_EXPANDED + " SELECT p.*, SUM(c.status = 'open') AS open,"
            " SUM(c.status = 'expanded'), SUM(c.status = 'proved'), SUM(c.status = 'failed')"
            " FROM vertex p JOIN reply r ON r.parent = p.key JOIN vertex c ON c.key = r.child"
            " WHERE p.status = 'expanded' AND p.key IN (SELECT key FROM below)"
            " GROUP BY p.key ORDER BY open DESC, p.stones, p.key LIMIT ?", (signed(key), limit))
        return [(_vertex(row[:10]), dict(zip(_STATUSES, map(int, row[10:])))) for row in rows]

    def replay_groups(self) -> list[tuple[Vertex, list[Vertex], list[Vertex]]]:
        """Each expanded vertex with proved child vertices and others not proved (open or
        expanded): (it, those not proved, the proved).  (Every expanded vertex is reached from
        the root: ``propagate`` removes the others.)"""
        parents = [_vertex(row) for row in self.db.execute(
            "SELECT * FROM vertex p WHERE p.status = 'expanded'"
            " AND EXISTS (SELECT 1 FROM reply r CROSS JOIN vertex c ON c.key = r.child"
            "  WHERE r.parent = p.key AND c.status = 'proved')")]  # (replies first: CROSS JOIN)
        groups = []
        for parent in parents:
            children = self.child_vertices(parent.key)
            targets = [child for child in children if child.status in ("open", "expanded")]
            proved = [child for child in children if child.status == "proved"]
            if targets:
                groups.append((parent, targets, proved))
        return groups

    def floods(self, least_open: int) -> list[list[Vertex]]:
        """The child vertices of each expanded vertex with at least ``least_open`` replies
        open, none proved and at most one neither open nor proved (worked on)."""
        parents = self.db.execute(
            "SELECT p.key FROM vertex p JOIN reply r ON r.parent = p.key"
            " JOIN vertex c ON c.key = r.child WHERE p.status = 'expanded' GROUP BY p.key"
            " HAVING SUM(c.status = 'open') >= ? AND SUM(c.status = 'proved') = 0"
            " AND SUM(c.status != 'open') <= 1 ORDER BY p.stones, p.key", (least_open,))
        return [self.child_vertices(unsigned(key)) for key, in parents.fetchall()]

    def child_vertices(self, key: int) -> list[Vertex]:
        """The vertices the replies of the vertex ``key`` (unsigned) lead to."""
        return [child for child_key in self.children(key)
                if (child := self.vertex(child_key)) is not None]

    def strategy(self, key: int, limit: int) -> dict[int, int] | None:
        """The attacker's move (canonical frame) at every vertex of the proof below the proved
        vertex ``key`` (unsigned), it included, by canonical key; None when that proof has more
        than ``limit`` vertices, or a vertex below it is not proved."""
        rows = self.db.execute(  # (the recursion itself stops past the limit)
            "WITH RECURSIVE below(key) AS (SELECT ? UNION SELECT r.child FROM below"
            " JOIN reply r ON r.parent = below.key LIMIT ?)"
            " SELECT v.key, v.move, v.status FROM vertex v JOIN below ON v.key = below.key",
            (signed(key), limit + 1)).fetchall()
        if len(rows) > limit or any(status != "proved" or move is None
                                    for _, move, status in rows):
            return None
        return {unsigned(vertex): move for vertex, move, _ in rows}

    def unseen_open_vertices(self, limit: int) -> list[Vertex]:
        """Open vertices no job has worked on (attempts 0), the most stones first."""
        return [_vertex(row) for row in self.db.execute(
            "SELECT * FROM vertex WHERE status = 'open' AND attempts = 0 "
            "ORDER BY stones DESC, key LIMIT ?", (limit,))]

    def open_by_branch(self, branch_moves: int) -> Counter[str]:
        """Open vertices per branch (see ``open_branches``)."""
        return Counter(branch(vertex, branch_moves) for vertex in self.vertices("open"))

    def children(self, key: int) -> list[int]:
        rows = self.db.execute("SELECT child FROM reply WHERE parent = ?", (signed(key),))
        return [unsigned(row[0]) for row in rows]

    def counts(self) -> dict[str, int]:
        return _by_status(self.db.execute("SELECT status, COUNT(*) FROM vertex GROUP BY status"))

    def reached_counts(self, key: int) -> dict[str, int]:
        """Vertices per status reached from the vertex ``key`` through the replies (it
        included): the strategy below it so far, without the proved vertices that no chosen
        move reaches (kept for transpositions, as the ``counts`` of the whole graph are)."""
        return _by_status(self.db.execute(
            "WITH RECURSIVE below(key) AS (SELECT ? UNION "
            " SELECT r.child FROM reply r JOIN below ON r.parent = below.key)"
            " SELECT v.status, COUNT(*) FROM vertex v JOIN below ON v.key = below.key"
            " GROUP BY v.status", (signed(key),)))

    def deepest_open(self) -> int:
        row = self.db.execute("SELECT MAX(stones) FROM vertex WHERE status = 'open'").fetchone()
        return int(row[0] or 0)

    # --- writing ---------------------------------------------------------------------------
    def add_open(self, key: int, moves: str, stones: int) -> None:
        """A new open vertex (nothing if the key is known)."""
        self.db.execute("INSERT OR IGNORE INTO vertex (key, moves, stones, status) "
                        "VALUES (?, ?, ?, 'open')", (signed(key), moves, stones))

    def record(self, vertex: Vertex, children: Iterable[tuple[int, str, int]]) -> None:
        """Write a worked-on vertex and its child vertices (key, moves, stones), new ones open;
        nothing over a proved vertex unless proved again (a job that worked on it before a
        proof reached it by transposition)."""
        if vertex.status != "proved" and (mine := self.vertex(vertex.key)) is not None \
                and mine.status == "proved":
            return
        self.db.execute(
            "INSERT INTO vertex VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE "
            "SET status = excluded.status, move = excluded.move, longest = excluded.longest, "
            "threat_longest = excluded.threat_longest, attempts = excluded.attempts, "
            "proof_nodes = excluded.proof_nodes, excluded = excluded.excluded",
            (signed(vertex.key), vertex.moves, vertex.stones, vertex.status, vertex.move,
             vertex.longest, vertex.threat_longest, vertex.attempts, vertex.proof_nodes,
             vertex.excluded))
        self.db.execute("DELETE FROM reply WHERE parent = ?", (signed(vertex.key),))
        for key, moves, stones in children:
            self.add_open(key, moves, stones)
            self.db.execute("INSERT OR IGNORE INTO reply VALUES (?, ?)",
                            (signed(vertex.key), signed(key)))

    def propagate(self, root: int | None = None) -> int:
        """Mark proved every expanded vertex whose children are all proved, and open again
        (the move excluded) every expanded vertex with a failed child, until nothing changes;
        returns how many vertices changed.  With the ``root`` key, vertices no longer reached
        from it (the other replies to a move given up) are removed, proved ones excepted."""
        marked = 0
        while True:
            if root is not None:
                marked += self._remove_unreached(root)
            failures = self.db.execute(  # (from the few failed vertices up: CROSS JOIN)
                "SELECT DISTINCT p.key, p.move FROM vertex c CROSS JOIN reply r "
                "ON r.child = c.key CROSS JOIN vertex p ON p.key = r.parent "
                "WHERE c.status = 'failed' AND p.status = 'expanded'").fetchall()
            for key, move in failures:
                self._exclude_move(key, move)
            marked += len(failures)
            rows = self.db.execute(  # (every reply closed by threats: no child at all)
                "SELECT v.key, v.threat_longest, (SELECT MAX(c.longest) FROM reply r "
                " JOIN vertex c ON c.key = r.child WHERE r.parent = v.key) FROM vertex v "
                "WHERE v.status = 'expanded' AND NOT EXISTS (SELECT 1 FROM reply r "
                " JOIN vertex c ON c.key = r.child WHERE r.parent = v.key "
                " AND c.status != 'proved')").fetchall()
            if not rows and not failures:
                return marked
            for key, threat_longest, child_longest in rows:
                longest = max(threat_longest, child_longest or 0)
                self.db.execute("UPDATE vertex SET status = 'proved', longest = ? WHERE key = ?",
                                (longest, key))
            marked += len(rows)

    def raise_budget(self, budget: int) -> int:
        """Make the budget ``budget``, larger than the graph's: every proof stands (it fits
        the smaller one), and every vertex not proved forgets the moves refused and the tries
        made under the smaller one (a failed one is open again); returns how many forgot."""
        if budget <= int(self.setting("budget")):
            raise ValueError(f"budget {budget} is not more than {self.setting('budget')}")
        with self.db:
            self.db.execute("UPDATE meta SET value = ? WHERE name = 'budget'", (str(budget),))
            return self.db.execute(
                "UPDATE vertex SET excluded = '', attempts = 0, status = CASE status "
                "WHEN 'failed' THEN 'open' ELSE status END WHERE status != 'proved' AND "
                "(excluded != '' OR attempts > 0 OR status = 'failed')").rowcount

    def _exclude_move(self, key: int, move: int) -> None:
        """Open the expanded vertex ``key`` (signed) again with its ``move`` excluded."""
        self.db.execute("UPDATE vertex SET status = 'open', move = NULL, excluded = "
                        "excluded || ? WHERE key = ?", (f"{move},", key))
        self.db.execute("DELETE FROM reply WHERE parent = ?", (key,))

    def give_up_floods(self, stones: int, replies: int, root: int) -> int:
        """Open again, with the move excluded, every expanded vertex of at least ``stones``
        stones whose move leaves more than ``replies`` replies unproved (the flood limit of
        ``BuildSettings.flood_replies``, applied to what was expanded before it), and drop
        what only they reached (``root``: the graph's root key); returns how many."""
        floods = self.db.execute(
            "SELECT p.key, p.move FROM vertex p JOIN reply r ON r.parent = p.key "
            "JOIN vertex c ON c.key = r.child WHERE p.status = 'expanded' AND p.stones >= ? "
            "AND c.status != 'proved' GROUP BY p.key HAVING COUNT(*) > ?",
            (stones, replies)).fetchall()
        for key, move in floods:
            self._exclude_move(key, move)
        self.propagate(root)
        return len(floods)

    def _remove_unreached(self, root: int) -> int:
        removed = 0
        while True:
            gone = self.db.execute(
                "DELETE FROM vertex WHERE status IN ('open', 'expanded', 'failed') AND key != ? "
                "AND NOT EXISTS (SELECT 1 FROM reply r WHERE r.child = vertex.key) RETURNING key",
                (signed(root),)).fetchall()
            self.db.executemany("DELETE FROM reply WHERE parent = ?", gone)
            if not gone:
                return removed
            removed += len(gone)

    def reopen(self, parent: int, key: int, moves: str, stones: int) -> int:
        """Mend a hole: the position ``key`` (reached by ``moves``, ``stones`` stones), a reply
        below the vertex ``parent`` that is neither a vertex nor won by threats, becomes an open
        child of it, and ``parent`` with every proved vertex above it goes back to expanded
        (``propagate`` proves them again once the new vertex is).  Returns how many went back."""
        self.add_open(key, moves, stones)
        self.db.execute("INSERT OR IGNORE INTO reply VALUES (?, ?)", (signed(parent), signed(key)))
        before = self.db.total_changes  # (a statement opening with WITH has no rowcount)
        self.db.execute(  # (+status: by key, as in proved_among)
            "WITH RECURSIVE up(key) AS ("
            " SELECT ? UNION SELECT r.parent FROM reply r JOIN up ON r.child = up.key)"
            " UPDATE vertex SET status = 'expanded', longest = NULL"
            " WHERE +status = 'proved' AND key IN (SELECT key FROM up)", (signed(parent),))
        return self.db.total_changes - before

    def commit(self) -> None:
        self.db.commit()

    def replay_memo(self) -> dict[int, Replayed]:
        """The replays a build's rounds remember, by vertex key."""
        return {unsigned(key): (frozenset(unsigned(int(target)) for target in targets.split()),
                                tuple(guides.split(",")))
                for key, targets, guides in self.db.execute("SELECT * FROM replayed")}

    def remember_replays(self, memo: dict[int, Replayed]) -> dict[int, Replayed]:
        """Keep ``memo`` (as ``replay_memo`` gives it back) in place of the one kept before,
        but for the replays at vertices proved or gone since, which no replay looks up again;
        returns what it kept."""
        unproved = {unsigned(key) for (key,) in self.db.execute(
            "SELECT key FROM vertex WHERE status != 'proved'")}
        kept = {key: seen for key, seen in memo.items() if key in unproved}
        with self.db:
            self.db.execute("DELETE FROM replayed")
            self.db.executemany("INSERT INTO replayed VALUES (?, ?, ?)", [
                (signed(key), " ".join(str(signed(target)) for target in sorted(targets)),
                 ",".join(guides)) for key, (targets, guides) in kept.items()])
        return kept

    def reproved(self, vertices: list[Vertex], reproof: Reproof,
                 check: Callable[[list[Vertex]], list[bool]]) -> set[int]:
        """The keys of ``vertices`` a proof search within the reproof's limits proves from
        scratch: the answers kept from before, and ``check``'s for the others (kept now)."""
        known: dict[int, bool] = {}
        for vertex in vertices:
            row = self.db.execute(
                "SELECT proved FROM reproof WHERE key = ? AND proof_nodes = ? AND "
                "threat_nodes = ?", (signed(vertex.key), reproof.proof_nodes,
                                     reproof.threat_nodes)).fetchone()
            if row is not None:
                known[vertex.key] = bool(row[0])
        unknown = [vertex for vertex in vertices if vertex.key not in known]
        for start in range(0, len(unknown), REPROOF_BATCH):
            batch = unknown[start: start + REPROOF_BATCH]
            with self.db:  # an interrupted export keeps the answers of every batch before
                for vertex, proved in zip(batch, check(batch), strict=True):
                    known[vertex.key] = proved
                    self.db.execute("INSERT OR REPLACE INTO reproof VALUES (?, ?, ?, ?)",
                                    (signed(vertex.key), reproof.proof_nodes,
                                     reproof.threat_nodes, int(proved)))
        return {key for key, proved in known.items() if proved}

    def merge(self, other: Graph, root: int, *, worked_on: bool = False) -> int:
        """Join a graph built separately (a hard subtree attacked from its own root, with the
        same rule, size and budget): its vertices that are new here, or proved there and not
        here, or with ``worked_on`` expanded there and open here with no move excluded (a graph
        apart built from an open vertex that did not prove brings its move and the work below
        it), are taken with their replies, and its export's reproof answers for positions that
        have none here (an export run on a copy need not be run again); then ``propagate`` from
        this graph's ``root`` key, which drops again the unproved vertices taken that it does not
        reach (those of an older copy that this build has given up since).  A graph built from
        another root brings its computation too, what was not counted at an earlier merge of it
        (a copy of this graph, with the same root, brings none).  A graph built with a larger
        budget gives only what fits this one: a vertex whose proof, or whose replies closed by
        threats, end beyond this budget comes as an open vertex (what failed or was excluded
        there fails here too).  The graph's df-pn figure at the leaves becomes the larger of the
        two first (a merge cut short leaves it too high, never too low).  Returns how many
        vertices were taken."""
        for name in ("rule", "size"):
            if other.setting(name) != self.setting(name):
                raise ValueError(f"cannot merge: {name} {other.setting(name)} is not "
                                 f"{self.setting(name)}")
        budget = int(self.setting("budget"))
        if int(other.setting("budget")) < budget:
            raise ValueError(f"cannot merge: budget {other.setting('budget')} is less than "
                             f"{budget} (what failed there may prove here)")
        self.record_leaf_dfpn_nodes(other.leaf_dfpn_nodes())
        taken = 0
        with self.db:
            if other.setting("root") != self.setting("root"):
                self._count_merged_seconds(other)
            for vertex in other.vertices():
                if (vertex.longest or 0) > budget or vertex.threat_longest > budget:
                    vertex = Vertex(vertex.key, vertex.moves, vertex.stones, "open", None, None,
                                    0, vertex.attempts, 0, vertex.excluded)
                mine = self.vertex(vertex.key)
                taken_over = (worked_on and mine is not None and mine.status == "open"
                              and not mine.excluded and vertex.status == "expanded")
                if mine is not None and not taken_over and (
                        mine.status == "proved" or vertex.status != "proved"):
                    continue
                below = other.children(vertex.key) if vertex.status != "open" else []
                children = [other.vertex(key) for key in below]
                self.record(vertex, [(c.key, c.moves, c.stones) for c in children
                                     if c is not None])
                taken += 1
            self.db.executemany("INSERT OR IGNORE INTO reproof VALUES (?, ?, ?, ?)",
                                other.db.execute("SELECT * FROM reproof").fetchall())
            self.propagate(root)
        return taken

    def _count_merged_seconds(self, other: Graph) -> None:
        """Add the computation of ``other`` (built from another root) not yet counted here."""
        name = f"core_seconds merged from {other.setting('root')}"
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        counted = float(row[0]) if row else 0.0
        self.add_core_seconds(max(0.0, other.core_seconds() - counted))
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                        (name, f"{max(counted, other.core_seconds()):.3f}"))


def _by_status(rows: Iterable[tuple[str, int]]) -> dict[str, int]:
    """(status, count) rows as a count for each of the four statuses."""
    found = dict.fromkeys(_STATUSES, 0)
    found.update({str(status): int(count) for status, count in rows})
    return found


def branch(vertex: Vertex, branch_moves: int) -> str:
    """The first ``branch_moves`` moves of the vertex's line."""
    return " ".join(vertex.moves.split()[:branch_moves])


def branch_order(line: str) -> tuple[int, str]:
    """The order branches are built in: the defender's reply farthest from the attacker's move
    first (the attacker is most nearly a move ahead there, so those should prove soonest),
    then by name: an order that does not change as the graph grows, so the builder stays on
    one branch until it is done."""
    moves = [(ord(move[0]) - ord("a"), int(move[1:])) for move in line.split()]
    if len(moves) < 2:
        return 0, line
    (ax, ay), (dx, dy) = moves[-2:]
    return -max(abs(ax - dx), abs(ay - dy)), line


# The vertices reached from a vertex (the parameter, signed) through the replies of expanded
# vertices, it included: a common table ``below`` for the query that follows.
_REACHED_THROUGH_EXPANDED = (
    "WITH RECURSIVE below(key) AS (SELECT ? UNION SELECT r.child FROM below"
    " JOIN vertex p ON p.key = below.key JOIN reply r ON r.parent = below.key"
    " WHERE p.status = 'expanded')")

# A vertex's statuses, in the order counts of them are given.
_STATUSES = ("open", "expanded", "proved", "failed")

# The order of the open vertices in a branch (Graph.open_branches).
_DEEPEST_FIRST = "ORDER BY stones DESC, attempts DESC, key"


def _vertex(row: tuple[int, str, int, str, int | None, int | None, int, int, int, str]
            ) -> Vertex:
    key, moves, stones, status, move, longest, threat_longest, attempts, nodes, excluded = row
    return Vertex(unsigned(key), moves, stones, status, move, longest, threat_longest, attempts,
                  nodes, excluded)


def export(graph: Graph, path: Path, include_unproved: bool = False,
           reproof: Reproof = Reproof(0, 0),
           reproved: Callable[[list[Vertex]], list[bool]] | None = None) -> int:
    """Write the moves of the proved vertices reached from the graph's root (and, with
    ``include_unproved``, of the expanded ones) to ``path``; returns how many.  With a reproof
    of more than 0 nodes, a proved vertex reached only below a stored one is left out, with all
    that it alone leads to, when a proof search within the reproof's limits proves it from
    scratch (book.py): ``reproved`` answers that for a list of vertices (without it nothing is
    left out), and the answers are kept in the graph (table ``reproof``) for the next export."""
    if reproved is None:
        reproof = Reproof(0, 0)  # nothing left out
    root = position_board(graph.setting("root"), int(graph.setting("size")),
                          int(graph.setting("rule"))).canonical_key()[0]
    entries: dict[int, int] = {}
    # The vertices with as many stones, each with whether every parent that leads to it (all
    # of them have two stones fewer) is stored: only then can the game reach it in the book.
    level = {root: False}
    while level:
        vertices = [(vertex, below_stored) for key, below_stored in level.items()
                    if (vertex := graph.vertex(key)) is not None]
        left_out = graph.reproved([v for v, below in vertices if below and v.status == "proved"],
                                  reproof, reproved) if reproved and reproof.proof_nodes else set()
        level = {}
        for vertex, _ in vertices:
            if vertex.key in left_out:
                continue
            stored = vertex.move is not None and (
                vertex.status == "proved" or (include_unproved and vertex.status == "expanded"))
            if stored:
                entries[vertex.key] = int(vertex.move or 0)
            for child in graph.children(vertex.key):
                level[child] = level.get(child, True) and stored
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = sorted(entries)
    with open(path, "wb") as out:
        out.write(HEADER.pack(MAGIC, int(graph.setting("rule")), int(graph.setting("size")),
                              int(graph.setting("budget")), 0, len(keys), reproof.proof_nodes,
                              reproof.threat_nodes))
        out.write(struct.pack(f"<{len(keys)}Q", *keys))
        out.write(struct.pack(f"<{len(keys)}H", *(entries[key] for key in keys)))
    return len(keys)
