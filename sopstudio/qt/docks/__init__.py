"""Side docks of the main window: tool library, problems, history."""
