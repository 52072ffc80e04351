"""What runs in the user's kernel to trace the PySpark API: the tracer and its hooks, the trace
contract, the plans read from classic and Spark Connect sessions, and what is recorded."""
