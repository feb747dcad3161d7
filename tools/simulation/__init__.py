"""Balance simulation: many seeded games between agents, their records, summary and report.

records.py plays one game and describes it; runner.py plays many (here, in worker processes
or on Ray); summary.py computes the figures and compares two runs; report.py draws them.
"""
