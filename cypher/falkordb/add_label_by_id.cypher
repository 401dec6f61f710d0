// Ghost repair, step 1 for ids that live nodes have taken over: give those nodes the label.
MATCH (n)
WHERE id(n) IN $ids
SET n:{label}
