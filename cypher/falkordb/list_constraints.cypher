// The graph's constraints and their build status (UNDER CONSTRUCTION, OPERATIONAL or FAILED).
CALL db.constraints() YIELD type, label, properties, entitytype, status
RETURN type, label, properties, entitytype, status
