"""Embeddings: the :class:`~explorer.embed.base.Embedder` seam and its backends, and the models
by name (:mod:`explorer.embed.models`, which loads nothing).  Nothing is imported here, so that
naming a model does not load numpy."""
