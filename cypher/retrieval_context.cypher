// Graph context of retrieval hits: caption <-> figure/table partners, what a hit refers to (and what
// refers to it), and the reading order's step over a page break from or to a hit: the region
// continuing it (continuation = true: the reader found the text running on), or else just the
// region after it.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})-[rel:CAPTION_OF|REF|HAS_NEXT]->(o:Region)
WHERE type(rel) <> 'HAS_NEXT' OR rel.cross_page = true OR rel.continuation = true
RETURN id AS hit, type(rel) AS type, true AS outgoing, rel.continuation = true AS continuation,
       o.region_id AS region_id, o.page AS page, o.kind AS kind, o.text AS text, o.bbox AS bbox
UNION ALL
UNWIND $ids AS id
MATCH (r:Region {region_id: id})<-[rel:CAPTION_OF|REF|HAS_NEXT]-(o:Region)
WHERE type(rel) <> 'HAS_NEXT' OR rel.cross_page = true OR rel.continuation = true
RETURN id AS hit, type(rel) AS type, false AS outgoing, rel.continuation = true AS continuation,
       o.region_id AS region_id, o.page AS page, o.kind AS kind, o.text AS text, o.bbox AS bbox
