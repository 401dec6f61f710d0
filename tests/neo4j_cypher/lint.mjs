// Lints Cypher statements as Neo4j 5 would read them, with Neo4j's own parser and semantic
// analysis (@neo4j-cypher/language-support, the checker behind Neo4j's editors).
//
// stdin:  {"statements": [{"source": str, "query": str}], "labels": [str], "relationshipTypes": [str],
//          "propertyKeys": [str]}
// stdout: [{"source": str, "severity": "error" | "warning", "message": str, "line": int}]
//
// Procedures and functions are checked against the package's Neo4j procedure and function
// signatures, so a FalkorDB-only call (vecf32, db.idx.*) or a wrong argument count is reported.
// Labels, relationship types and property keys are checked against the lists given: a name the
// schema does not declare is a warning. Undeclared $parameters are not reported: queries take
// their parameters from the driver.
import { isNotParamError, lintCypherQuery, testData } from '@neo4j-cypher/language-support';
import { readFileSync } from 'node:fs';

const ERROR = 1; // LSP DiagnosticSeverity.Error; 2 is Warning

const input = JSON.parse(readFileSync(0, 'utf8'));
const neo4j = testData.mockSchema;
const schema = {
  procedures: neo4j.procedures,
  functions: neo4j.functions,
  labels: input.labels,
  relationshipTypes: input.relationshipTypes,
  propertyKeys: input.propertyKeys,
  defaultLanguage: 'CYPHER 5',
};

const found = [];
for (const { source, query } of input.statements) {
  const { diagnostics } = lintCypherQuery(query, schema, { consoleCommandsEnabled: false });
  for (const diagnostic of diagnostics.filter(isNotParamError)) {
    found.push({
      source,
      severity: diagnostic.severity === ERROR ? 'error' : 'warning',
      message: diagnostic.message,
      line: diagnostic.range.start.line + 1,
    });
  }
}
process.stdout.write(JSON.stringify(found));
