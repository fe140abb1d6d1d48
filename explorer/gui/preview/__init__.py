"""The preview of the selected note: rendered text, images, links, its chunk strip and the notes
around it."""
