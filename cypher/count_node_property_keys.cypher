// How many nodes carry each property key.
MATCH (n)
UNWIND keys(n) AS key
RETURN key, count(*) AS count
