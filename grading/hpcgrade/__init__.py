"""hpcgrade: the hpc-labs autograder (Python 3 standard library only)."""
