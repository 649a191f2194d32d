"""Stored retrieval data: candidate windows per book, cached passage vectors, claims and evidence."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from litlens.retrieval.candidates import Candidate


@dataclass(frozen=True)
class EvidenceRow:
    id: int
    claim: str
    claim_text: str
    chapter: int | None
    start: int
    end: int
    text: str
    query: str
    method: str
    score: float | None


class RetrievalStore:
    """Reads and writes of the retrieval tables of one project (``project.conn``)."""

    def __init__(self, project) -> None:
        self.project = project
        self.conn: sqlite3.Connection = project.conn

    # -- candidates -----------------------------------------------------------------------
    def candidate_count(self, book_id: int) -> int:
        return self.conn.execute("SELECT count(*) FROM retrieval_candidates WHERE book_id = ?", (book_id,)).fetchone()[0]

    def candidates(self, book_id: int) -> list[Candidate]:
        rows = self.conn.execute(
            'SELECT idx, chapter, first, n, start, "end", text FROM retrieval_candidates WHERE book_id = ? ORDER BY idx',
            (book_id,),
        )
        return [Candidate(r[0], book_id, r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]

    def replace_candidates(self, book_id: int, candidates: list[Candidate]) -> None:
        """Store the book's candidates (all or nothing); cached vectors of old ones are dropped."""
        with self.project.atomic() as conn:
            conn.execute("DELETE FROM retrieval_embeddings WHERE book_id = ?", (book_id,))
            conn.execute("DELETE FROM retrieval_embedding_chunks WHERE book_id = ?", (book_id,))
            conn.execute("DELETE FROM retrieval_candidates WHERE book_id = ?", (book_id,))
            conn.executemany(
                'INSERT INTO retrieval_candidates (book_id, idx, chapter, first, n, start, "end", text) VALUES (?,?,?,?,?,?,?,?)',
                [(book_id, c.id, c.chapter, c.first, c.n, c.start, c.end, c.text) for c in candidates],
            )

    # -- passage vectors --------------------------------------------------------------------
    def embeddings(self, book_id: int, model_key: str) -> np.ndarray | None:
        row = self.conn.execute(
            "SELECT count, dim, vectors FROM retrieval_embeddings WHERE book_id = ? AND model_key = ?",
            (book_id, model_key),
        ).fetchone()
        if row is None:
            return None
        return np.frombuffer(row[2], dtype=np.float16).astype(np.float32).reshape(row[0], row[1])

    def save_embeddings(self, book_id: int, model_key: str, vectors: np.ndarray) -> None:
        with self.project.atomic() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO retrieval_embeddings (book_id, model_key, count, dim, vectors, created_at)"
                " VALUES (?, ?, ?, ?, ?, datetime('now'))",
                (book_id, model_key, int(vectors.shape[0]), int(vectors.shape[1]), vectors.astype(np.float16).tobytes()),
            )

    # -- a build in progress: vectors stored a chunk at a time ----------------------------------
    def save_chunk(self, book_id: int, model_key: str, start: int, vectors: np.ndarray, chars: int, seconds: float) -> None:
        """Store the vectors of candidates ``start .. start + len(vectors)`` as soon as they are made."""
        with self.project.atomic() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO retrieval_embedding_chunks (book_id, model_key, start, count, dim, vectors, chars, seconds)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (book_id, model_key, start, int(vectors.shape[0]), int(vectors.shape[1]),
                 vectors.astype(np.float16).tobytes(), chars, seconds),
            )

    def chunk_summary(self, book_id: int, model_key: str) -> dict[int, tuple[int, int, float]]:
        """start -> (count, chars, seconds) of each stored chunk of an unfinished build."""
        rows = self.conn.execute(
            "SELECT start, count, chars, seconds FROM retrieval_embedding_chunks WHERE book_id = ? AND model_key = ?",
            (book_id, model_key),
        )
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def finish_embeddings(self, book_id: int, model_key: str, total: int) -> np.ndarray:
        """Join the stored chunks into the book's vectors (all ``total`` candidates must be there)
        and drop the chunks, in one transaction."""
        rows = self.conn.execute(
            "SELECT start, count, dim, vectors FROM retrieval_embedding_chunks WHERE book_id = ? AND model_key = ? ORDER BY start",
            (book_id, model_key),
        ).fetchall()
        if not rows:
            raise ValueError("no stored chunks to join")
        dim = rows[0][2]
        out = np.zeros((total, dim), dtype=np.float16)
        covered = 0
        for start, count, d, blob in rows:
            if d != dim or start + count > total:
                raise ValueError(f"stored chunk at {start} does not fit the {total} candidates")
            out[start : start + count] = np.frombuffer(blob, dtype=np.float16).reshape(count, d)
            covered += count
        if covered != total:
            raise ValueError(f"stored chunks cover {covered} of {total} candidates")
        with self.project.atomic() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO retrieval_embeddings (book_id, model_key, count, dim, vectors, created_at)"
                " VALUES (?, ?, ?, ?, ?, datetime('now'))",
                (book_id, model_key, total, dim, out.tobytes()),
            )
            conn.execute("DELETE FROM retrieval_embedding_chunks WHERE book_id = ? AND model_key = ?", (book_id, model_key))
        return out.astype(np.float32)

    def embedding_keys(self, book_id: int) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT model_key FROM retrieval_embeddings WHERE book_id = ?", (book_id,))]

    # -- claims and evidence ------------------------------------------------------------------
    def claim_id(self, book_id: int, name: str, text: str = "", *, create: bool = True) -> int | None:
        row = self.conn.execute("SELECT id FROM claims WHERE book_id = ? AND name = ?", (book_id, name)).fetchone()
        if row is not None:
            if text:
                with self.project.atomic() as conn:
                    conn.execute("UPDATE claims SET text = ? WHERE id = ?", (text, row[0]))
            return row[0]
        if not create:
            return None
        with self.project.atomic() as conn:
            cur = conn.execute(
                "INSERT INTO claims (book_id, name, text, created_at) VALUES (?, ?, ?, datetime('now'))", (book_id, name, text)
            )
            return cur.lastrowid

    def claims(self, book_id: int) -> list[tuple[str, str, int]]:
        """(name, text, number of pinned passages) of each claim of the book."""
        return [
            (r[0], r[1], r[2])
            for r in self.conn.execute(
                "SELECT c.name, c.text, count(e.id) FROM claims c LEFT JOIN evidence e ON e.claim_id = c.id"
                " WHERE c.book_id = ? GROUP BY c.id ORDER BY c.name",
                (book_id,),
            )
        ]

    def pin(self, claim_id: int, chapter: int | None, start: int, end: int, text: str, query: str, method: str, score: float | None) -> int:
        with self.project.atomic() as conn:
            conn.execute(
                'INSERT OR IGNORE INTO evidence (claim_id, chapter, start, "end", text, query, method, score, created_at)'
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, datetime('now'))",
                (claim_id, chapter, start, end, text, query, method, score),
            )
            return conn.execute('SELECT id FROM evidence WHERE claim_id = ? AND start = ? AND "end" = ?', (claim_id, start, end)).fetchone()[0]

    def unpin(self, evidence_id: int) -> bool:
        with self.project.atomic() as conn:
            return conn.execute("DELETE FROM evidence WHERE id = ?", (evidence_id,)).rowcount > 0

    def evidence(self, book_id: int, claim: str | None = None) -> list[EvidenceRow]:
        sql = (
            'SELECT e.id, c.name, c.text, e.chapter, e.start, e."end", e.text, e.query, e.method, e.score'
            " FROM evidence e JOIN claims c ON c.id = e.claim_id WHERE c.book_id = ?"
        )
        args: list = [book_id]
        if claim is not None:
            sql += " AND c.name = ?"
            args.append(claim)
        sql += " ORDER BY c.name, e.start"
        return [EvidenceRow(*r) for r in self.conn.execute(sql, args)]
