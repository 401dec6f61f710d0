// The database's indexes (token lookup indexes left out).
SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state
WHERE type <> 'LOOKUP'
RETURN name, type, entityType, labelsOrTypes, properties, state
