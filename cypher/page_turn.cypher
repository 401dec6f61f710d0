// How far a page was turned clockwise to read it (a scan fed sideways): its regions' boxes are in that frame.
MATCH (p:Page {doc_id: $doc_id, number: $page})
RETURN coalesce(p.turn, 0) AS turn
