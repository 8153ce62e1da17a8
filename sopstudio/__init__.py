"""SOP Studio: draw, validate, simulate, version and export SOP decision graphs."""

__version__ = "0.1.0"
