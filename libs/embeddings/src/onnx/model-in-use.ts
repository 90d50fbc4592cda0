import type { DataSource } from 'typeorm';
import { LOCAL_EMBEDDER_MODELS, LocalEmbedderModel } from './local-model';
import { INT8_SPACE_SUFFIX } from './onnx.embedder';

/** The local model whose embedding space holds the most COMPLETE documents, and how many. */
export interface ModelInUse {
  model: LocalEmbedderModel;
  documents: number;
}

/** The local model a space key (`<model>[-int8]:<dimensions>`) was embedded by, if any. */
export function localModelOfSpace(space: string): LocalEmbedderModel | undefined {
  const name = space.slice(0, space.lastIndexOf(':')).replace(new RegExp(`${INT8_SPACE_SUFFIX}$`), '');
  return (Object.keys(LOCAL_EMBEDDER_MODELS) as LocalEmbedderModel[]).find(
    (m) => LOCAL_EMBEDDER_MODELS[m].name === name,
  );
}

/**
 * The local model most COMPLETE documents are embedded by (every account: an operator's view of
 * the install), so LOCAL_EMBEDDER=auto keeps an existing index searchable when the default model
 * changes. Undefined when no document is recorded in a local model's space, or when the database
 * cannot tell (not migrated yet: a new install).
 */
export async function localModelInUse(ds: DataSource | undefined): Promise<ModelInUse | undefined> {
  if (!ds?.isInitialized) return undefined;
  try {
    const rows: Array<{ space: string; documents: number }> = await ds.query(
      `SELECT embedding_space AS space, count(*)::int AS documents FROM documents
        WHERE status = 'COMPLETE' AND embedding_space IS NOT NULL
        GROUP BY embedding_space ORDER BY documents DESC, embedding_space LIMIT 1`,
    );
    const model = rows[0] ? localModelOfSpace(rows[0].space) : undefined;
    return model ? { model, documents: rows[0].documents } : undefined;
  } catch {
    return undefined;
  }
}
