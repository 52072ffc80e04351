"""The intermediate representation: expressions and operator trees (no Spark, Z3 or Jupyter here)."""
