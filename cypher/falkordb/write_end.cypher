// Closes a document write: removes the marker and says whether the new version was kept.
MATCH (w:DocgraphWrite {token: $token})
WITH w, w.steps = $steps AS complete
DELETE w
RETURN complete
