"""The graph canvas: a QGraphicsScene mirroring the document and the view that shows it."""
