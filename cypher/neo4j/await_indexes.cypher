// Blocks until every index is online (or the timeout, in seconds, passes).
CALL db.awaitIndexes($timeout)
