// How many relationships carry each property key.
MATCH ()-[r]->()
UNWIND keys(r) AS key
RETURN key, count(*) AS count
