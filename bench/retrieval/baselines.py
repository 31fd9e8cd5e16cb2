"""The Python baselines of bench/retrieval.rb: bm25s, all-MiniLM-L6-v2 embeddings and
their reciprocal-rank fusion, over the passages the bench passes in one JSON file
({"passages": [{"path", "text"}], "questions": [str], "cache": dir}). Writes to stdout,
for each method, the files ranked best first for each question, with times."""
import hashlib
import json
import os
import sys
import time

import bm25s
import numpy as np

from minilm import MiniLM

DEPTH = 10
RRF_K = 60


def files_of(passage_ids, paths):
    """Files in the order of their best passage."""
    seen = []
    for i in passage_ids:
        if paths[i] not in seen:
            seen.append(paths[i])
            if len(seen) == DEPTH:
                break
    return seen


def run_bm25(texts, paths, questions):
    start = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    index_time = time.perf_counter() - start
    ranked, times, passage_ranks = [], [], []
    for q in questions:
        t = time.perf_counter()
        ids, _ = retriever.retrieve(bm25s.tokenize([q], stopwords="en", show_progress=False),
                                    k=min(200, len(texts)), show_progress=False)
        times.append(time.perf_counter() - t)
        passage_ranks.append(list(ids[0]))
        ranked.append(files_of(ids[0], paths))
    return {"index_seconds": index_time, "query_seconds": times, "files": ranked}, passage_ranks


def passage_vectors(model, texts, cache):
    digest = hashlib.sha256(json.dumps(texts).encode()).hexdigest()[:16]
    path = os.path.join(cache, f"minilm-{digest}.npy")
    if os.path.exists(path):
        return np.load(path), 0.0, True
    start = time.perf_counter()
    vectors = model.embed(texts)
    elapsed = time.perf_counter() - start
    os.makedirs(cache, exist_ok=True)
    np.save(path, vectors)
    return vectors, elapsed, False


def run_embeddings(texts, paths, questions, cache):
    model = MiniLM()
    vectors, index_time, cached = passage_vectors(model, texts, cache)
    ranked, times, passage_ranks = [], [], []
    for q in questions:
        t = time.perf_counter()
        ids = np.argsort(-(vectors @ model.embed([q])[0]))[:200]
        times.append(time.perf_counter() - t)
        passage_ranks.append(list(ids))
        ranked.append(files_of(ids, paths))
    return {"index_seconds": index_time, "index_cached": cached, "query_seconds": times, "files": ranked}, passage_ranks


def fuse(bm25_ranks, embedding_ranks, paths, bm25, embeddings):
    ranked, times = [], []
    for i, (a, b) in enumerate(zip(bm25_ranks, embedding_ranks)):
        scores = {}
        for ranks in (a, b):
            for rank, pid in enumerate(ranks):
                scores[pid] = scores.get(pid, 0.0) + 1.0 / (RRF_K + rank + 1)
        ranked.append(files_of(sorted(scores, key=scores.get, reverse=True), paths))
        times.append(bm25["query_seconds"][i] + embeddings["query_seconds"][i])
    return {"index_seconds": bm25["index_seconds"] + embeddings["index_seconds"], "query_seconds": times,
            "files": ranked}


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    texts = [p["text"] for p in data["passages"]]
    paths = [p["path"] for p in data["passages"]]
    bm25, bm25_ranks = run_bm25(texts, paths, data["questions"])
    embeddings, embedding_ranks = run_embeddings(texts, paths, data["questions"], data["cache"])
    fusion = fuse(bm25_ranks, embedding_ranks, paths, bm25, embeddings)
    json.dump({"bm25s": bm25, "MiniLM embeddings": embeddings, "fusion (RRF)": fusion}, sys.stdout)


if __name__ == "__main__":
    main()
