"""The simulation UI: the simulation dock and its parts, the worker thread that runs the engine's
`SimulationSession`, the batch dialog and its job, endpoint profiles, the canvas overlay, stored
runs, and `attach_simulation` which adds all of it to a main window (integration.py)."""
