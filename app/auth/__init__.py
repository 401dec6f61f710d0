"""Who may do what: API keys with a reader or writer role, stored hashed, and the request checks
(keys, Host, Origin) that the servers share."""
