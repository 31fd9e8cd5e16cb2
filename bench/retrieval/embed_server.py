"""all-MiniLM-L6-v2 (minilm.py) as an embedder for the gem's ranked search in the
retrieval bench: reads one JSON array of texts a line on stdin, writes one JSON array
of unit vectors a line on stdout, until stdin closes."""
import json
import sys

from minilm import MiniLM


def main():
    model = MiniLM()
    for line in sys.stdin:
        texts = json.loads(line)
        vectors = model.embed(texts) if texts else []
        sys.stdout.write(json.dumps([[round(float(v), 6) for v in vector] for vector in vectors]) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
