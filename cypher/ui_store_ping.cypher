// Whether the store answers a query at all (the UI's health panel).
RETURN 1 AS ok
