// Ghost repair, step 2: remove the label again, which clears the label's stale entry for the id.
MATCH (n)
WHERE id(n) IN $ids
REMOVE n:{label}
