"""`pytest benchmarks/reach` runs the harness's doctests; the corpus's notebooks and data
generators are not test modules (importing a notebook would run it)."""

collect_ignore_glob = ["corpus/*"]
