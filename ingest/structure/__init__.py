"""Document structure: the section tree, continuations across page and column breaks, node ids."""
