"""Evidence retrieval: candidate passages, BM25, dual encoders, fusion, re-ranking, evaluation."""
