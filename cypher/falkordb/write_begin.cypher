// Opens a document write (one MULTI/EXEC transaction): a marker node counts the steps that fully
// succeeded; the closing queries keep the new version only if every step did.
CREATE (:DocgraphWrite {token: $token, steps: 0})
