// The graph's indexes, one row per label: types maps each property to its index types.
CALL db.indexes() YIELD label, types, entitytype, status
RETURN label, types, entitytype, status
