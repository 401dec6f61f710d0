// question: Which paragraphs run on across page breaks, and over which pages?
// Each row is one whole chain of continuation links, from the paragraph's first part to its last.
MATCH chain = (first:Paragraph)-[:HAS_NEXT*1..10]->(last:Region)
WHERE all(link IN relationships(chain) WHERE link.continuation = true)
  AND NOT ()-[:HAS_NEXT {continuation: true}]->(first)
  AND NOT (last)-[:HAS_NEXT {continuation: true}]->()
RETURN chain, first.doc_id AS doc_id, [part IN nodes(chain) | part.page] AS pages,
       [part IN nodes(chain) | left(part.text, 60)] AS parts
